"""How long `lineit` takes to start, against a bare Python, in one run (interleaved rounds).

    python benchmarks/startup.py [--rounds 30] [--before /path/to/other/checkout]

Prints the median wall time of each command and its ratio to `python -c pass` (the floor any
Python program pays), and to the same command with every command module imported (the start-up
before commands were imported lazily: build_parser(every_command=True)). With --before, the
same commands of another checkout run in the same rounds (PYTHONPATH set to it)."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

EAGER = (
    "import sys; from lineit.cli import main as m; p = m.build_parser(every_command=True); p.parse_args(sys.argv[1:])"
)

CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "lineit --help": [sys.executable, "-m", "lineit.cli", "--help"],
    "lineit --version": [sys.executable, "-m", "lineit.cli", "--version"],
    "lineit rules": [sys.executable, "-m", "lineit.cli", "rules"],
    "--help, every command imported": [sys.executable, "-c", EAGER, "--help"],
}


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rounds", type=int, default=30)
    options.add_argument("--before", help="another checkout whose `lineit --help` and `--version` to time too")
    args = options.parse_args()
    cases = {name: (command, None) for name, command in CASES.items()}
    if args.before:
        env = {**os.environ, "PYTHONPATH": args.before}
        for name in ("lineit --help", "lineit --version"):
            cases[f"{name} (before)"] = (CASES[name], env)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, (command, env) in cases.items():
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env, cwd="/")
            times[name].append(time.perf_counter() - start)
    floor = statistics.median(times["python -c pass"])
    eager = statistics.median(times["--help, every command imported"])
    print(f"{'command':34} {'median':>9} {'x python':>9} {'x eager':>8}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:34} {median * 1000:7.1f}ms {median / floor:9.2f} {median / eager:8.2f}")


if __name__ == "__main__":
    main()
