"""Compile the engine's hot modules (line, state, observation) with mypyc, in place.

    python scripts/build_engine.py [--force] [--clean]

The compiled modules are the same typed Python source translated to C, several times faster
(benchmarks/engine.py prints both). ``native.json`` records the hash of each source compiled;
lineit/engine/_implementation.py uses the compiled modules only while those hashes
match, so an edited source is never shadowed by an old build. Nothing is rebuilt when the
build is current. Without a C compiler the build is skipped with a message and the engine
runs from its Python source: same rules, same results, slower.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "lineit" / "engine"
sys.path.insert(0, str(ROOT))

from lineit.engine._implementation import COMPILED_MODULES, MANIFEST, source_hash  # noqa: E402


def compiled_files() -> list[Path]:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return [path for path in ENGINE.iterdir() if path.name.endswith(suffixes)]


def clean() -> None:
    for path in [*compiled_files(), ENGINE / MANIFEST]:
        path.unlink(missing_ok=True)


def current() -> bool:
    try:
        manifest = json.loads((ENGINE / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return manifest.get("python") == sys.implementation.cache_tag and manifest.get("sources") == {
        name: source_hash(name) for name in COMPILED_MODULES
    }


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import Distribution

    hashes = {name: source_hash(name) for name in COMPILED_MODULES}
    paths = [f"lineit/engine/{name}.py" for name in COMPILED_MODULES]
    with tempfile.TemporaryDirectory(prefix="lineit-engine-build-") as scratch:
        os.chdir(ROOT)
        # opt_level 1: nearly all the speed of 3 for a fraction of the compile time.
        extensions = mypycify(paths, opt_level="1", debug_level="0", separate=True, target_dir=scratch)
        distribution = Distribution({"name": "lineit-engine", "ext_modules": extensions})
        command = distribution.get_command_obj("build_ext")
        command.inplace = True  # type: ignore[attr-defined]
        command.build_temp = str(Path(scratch) / "temp")  # type: ignore[attr-defined]
        command.build_lib = str(Path(scratch) / "lib")  # type: ignore[attr-defined]
        distribution.run_command("build_ext")
    manifest = {"python": sys.implementation.cache_tag, "sources": hashes}
    (ENGINE / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even when the build is current")
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules and stop")
    args = parser.parse_args()
    if args.clean:
        clean()
        print("engine: compiled modules removed; the Python source runs")
        return 0
    if current() and not args.force:
        print("engine: compiled modules are current")
        return 0
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        print("engine: no C compiler found; the engine runs from its Python source (slower)")
        return 0
    clean()
    try:
        build()
    except Exception as error:
        clean()
        print(f"engine: compiling failed ({error}); the engine runs from its Python source (slower)")
        return 0
    print("engine: compiled " + ", ".join(COMPILED_MODULES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
