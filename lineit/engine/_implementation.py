"""Which implementation of the engine's hot modules runs: compiled by mypyc, or the source.

``scripts/build_engine.py`` (run by ``make``) compiles ``line.py``, ``state.py`` and
``observation.py`` with mypyc into extension modules beside them, several times faster, and
records each source's hash in ``native.json``. The Python source stays the one definition of
the rules: the compiled modules are the same code, type-checked and translated to C.

Python imports an extension module in preference to its source, so a compiled module that no
longer matches its source (edited since the build) would silently run old rules. This module
is imported first by the package: it checks the hashes and, when they differ, when there is no
build, or when ``LINEIT_PURE_ENGINE=1``, it makes the three modules load from their source.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Final

# No pathlib and no importlib.abc here: every bot that imports the engine imports this module,
# and those two (with what they import) were half of its start-up in the sandbox.

COMPILED_MODULES: Final = ("line", "observation", "state")
MANIFEST: Final = "native.json"
_HERE: Final = os.path.dirname(os.path.realpath(__file__))
_PACKAGE: Final = __name__.rpartition(".")[0]


def source_hash(name: str) -> str:
    with open(os.path.join(_HERE, f"{name}.py"), "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


def compiled_build_problem() -> str | None:
    """Why the compiled modules cannot be used (None when they can)."""
    if os.environ.get("LINEIT_PURE_ENGINE") == "1":
        return "LINEIT_PURE_ENGINE=1 asks for the Python source"
    try:
        with open(os.path.join(_HERE, MANIFEST), encoding="utf-8") as file:
            manifest = json.load(file)
    except (OSError, ValueError):
        return "not compiled (run `make engine` or scripts/build_engine.py)"
    if not isinstance(manifest, dict) or manifest.get("python") != sys.implementation.cache_tag:
        return f"compiled for another Python than {sys.implementation.cache_tag}"
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    for name in COMPILED_MODULES:
        if not any(os.path.exists(os.path.join(_HERE, f"{name}{suffix}")) for suffix in suffixes):
            return f"the compiled {name} module is missing"
        if manifest.get("sources", {}).get(name) != source_hash(name):
            return f"{name}.py changed since it was compiled (run `make engine`)"
    return None


class _SourceFirst:
    """Loads the hot modules from their ``.py`` source even where an extension module exists (a
    meta path finder: an object with ``find_spec``)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package == _PACKAGE and name in COMPILED_MODULES:
            import importlib.util  # only when the source is asked for

            return importlib.util.spec_from_file_location(fullname, os.path.join(_HERE, f"{name}.py"))
        return None


WHY_NOT_COMPILED: Final = compiled_build_problem()
IMPLEMENTATION: Final = "python" if WHY_NOT_COMPILED else "compiled"
if WHY_NOT_COMPILED:
    sys.meta_path.insert(0, _SourceFirst())
