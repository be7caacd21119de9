"""What the seccomp allow-list costs per system call: the calls a decision makes (a pipe write and
read, a poll), timed in a child without a filter and in a child under the bot's complete program,
alternately, in one run. Run: .venv/bin/python benchmarks/seccomp.py [--program OTHER.py]

``--program`` also times the ``program(complete=True)`` of another copy of seccomp_filter.py (for
example the previous version, from ``git show``), so two filters compare in the same run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import select
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "lineit_platform" / "sandbox"))

import host_confinement  # noqa: E402

from lineit.sandbox.seccomp_filter import program  # noqa: E402

CALLS = 20_000  # round trips per sample: write, poll and read of one byte


def sample(filter_program: bytes | None) -> float:
    """Nanoseconds per round trip, in a forked child confined by ``filter_program``."""
    report_read, report_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
            read_end, write_end = os.pipe()
            if filter_program is not None:
                host_confinement.load_seccomp(filter_program)
            poller = select.poll()
            poller.register(read_end, select.POLLIN)
            started = time.perf_counter_ns()
            for _ in range(CALLS):
                os.write(write_end, b"x")
                poller.poll(0)
                os.read(read_end, 1)
            os.write(report_write, str((time.perf_counter_ns() - started) / CALLS).encode())
        finally:
            os._exit(0)
    os.close(report_write)
    result = float(os.read(report_read, 64) or b"nan")
    os.close(report_read)
    os.waitpid(pid, 0)
    return result


def load_other(path: Path) -> bytes:
    spec = importlib.util.spec_from_file_location("other_seccomp_filter", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return bytes(module.program(complete=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=15)
    parser.add_argument("--program", type=Path, help="another seccomp_filter.py to compare")
    args = parser.parse_args()
    programs: dict[str, bytes | None] = {"no filter": None, "allow-list": program(complete=True)}
    if args.program:
        programs[f"{args.program}"] = load_other(args.program)
    times: dict[str, list[float]] = {name: [] for name in programs}
    for _ in range(args.samples):
        for name, filter_program in programs.items():  # alternately, so drift hits all alike
            times[name].append(sample(filter_program))
    base = statistics.median(times["no filter"])
    print(f"write + poll + read of one byte through a pipe, pinned, median of {args.samples} x {CALLS}")
    for name, found in times.items():
        median = statistics.median(found)
        size = "" if programs[name] is None else f", {len(programs[name] or b'') // 8} BPF instructions"
        print(f"  {name}: {median:.0f} ns ({median - base:+.0f} ns, {median / base:.3f}x{size})")


if __name__ == "__main__":
    main()
