"""What `import lineit.engine` costs a fresh interpreter (`python -I -S`, as in the sandbox),
this tree against another, their runs alternating.

    python benchmarks/engine_import.py [--before /path/to/other/checkout] [--rounds 25]

The other checkout needs its compiled modules (copy lineit/engine/*.so and native.json when its
sources are the same). Prints each tree's median and the ratio."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

PROBE = (
    "import sys, time; sys.path.insert(0, sys.argv[1]); t = time.perf_counter(); "
    "import lineit.engine as e; print(time.perf_counter() - t, e.IMPLEMENTATION)"
)


def once(root: str) -> tuple[float, str]:
    out = subprocess.run([sys.executable, "-I", "-S", "-c", PROBE, root], capture_output=True, text=True, check=True)
    seconds, implementation = out.stdout.split()
    return float(seconds), implementation


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--before", help="another checkout to compare with")
    options.add_argument("--rounds", type=int, default=25)
    args = options.parse_args()
    trees = {"this tree": str(Path(__file__).resolve().parent.parent)}
    if args.before:
        trees = {"before": args.before, **{"after": trees["this tree"]}}
    times: dict[str, list[float]] = {name: [] for name in trees}
    kinds: dict[str, str] = {}
    for _ in range(args.rounds):
        for name, root in trees.items():
            seconds, kinds[name] = once(root)
            times[name].append(seconds)
    for name, values in times.items():
        print(f"{name:10} import lineit.engine: median {statistics.median(values) * 1000:6.1f} ms ({kinds[name]})")
    if args.before:
        print(f"after / before: {statistics.median(times['after']) / statistics.median(times['before']):.2f}")


if __name__ == "__main__":
    main()
