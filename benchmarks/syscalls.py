"""Which system calls a confined bot host makes: the measurement behind the seccomp allow-list
(lineit/sandbox/seccomp_filter.py). Run: .venv/bin/python benchmarks/syscalls.py

It plays short sandboxed matches in every working tier under ``strace -f`` (Debian package
strace): the built-in bots, and the test bots that use the standard library broadly, threads,
timers, big outputs and every way of failing that must still be reported (an exception, memory
exhausted, a crash). For each host it keeps the calls made once the allow-list applies: in the
bubblewrap tier everything after bwrap's execve of the interpreter, in the Landlock tier
everything after the host loaded its filter; threads inherit it. It prints each call with how
often it was seen, whether the allow-list admits it, and the allowed calls that no run made.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lineit.sandbox import detect_tier  # noqa: E402
from lineit.sandbox.seccomp_filter import HOST_STAGE, allowed_calls  # noqa: E402
from lineit.sandbox.tiers import HOST_VIEW_VARIABLE  # noqa: E402

# Both tiers are measured: the Landlock one as an operator who accepts its view of the machine
# runs it (docs/sandbox.md, "Tiers"); untrusted bots are not run there otherwise.
os.environ.setdefault(HOST_VIEW_VARIABLE, "1")

TEST_BOTS = REPO / "tests" / "sandbox" / "hostile"
BOTS = [
    "random",
    "greedy",
    "heuristic",
    "search",
    *(
        str(TEST_BOTS / f"{name}.py")
        for name in (
            "stdlib_user",
            "engine_user",
            "thread_while_returning",
            "output_without_newline",
            "stderr_flood",
            "raises",
            "memory_hog",
            "crash_segfault",
        )
    ),
]

MATCH = """
import sys
from pathlib import Path
from lineit.botkit.limits import Limits
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource, builtin_source
from lineit.sandbox import run_sandboxed_match

tier, bot = sys.argv[1], sys.argv[2]
source = BotSource(Path(bot).stem, Path(bot)) if "/" in bot else builtin_source(bot)
limits = Limits(startup_seconds=20, move_timeout_seconds=10, bank_seconds=60, memory_mb=256)
result = run_sandboxed_match(MatchSpec(2, 1, seed=5), [source, builtin_source("random")], limits=limits, tier=tier)
print(tier, bot, [failure.kind for failure in result.failures])
"""

CALL = re.compile(r"^(?:\d+:\d+:\d+\.\d+ )?([a-z_0-9]+)\(")
CANARY = "/nonexistent/lineit-canary"  # tiers.py: the canary tries to exec it
HOST = re.compile(r'execve\("(?![^"]*/bwrap")[^"]*", \[[^]]*host\.py')  # the interpreter, not bwrap


def confined_calls(trace: str, tier: str) -> list[str] | None:
    """The calls of one traced process made under the allow-list, None if it is not a host
    (or a thread of one: a thread's trace has neither marker and is wholly confined)."""
    lines = trace.splitlines()
    start = None
    for number, line in enumerate(lines):
        if HOST.search(line):
            start = number  # execve itself runs before the interpreter, under bwrap's filter
            break
    if start is not None and tier == "landlock":
        loaded = [number for number, line in enumerate(lines) if number > start and "PR_SET_SECCOMP" in line]
        start = loaded[0] + 1 if loaded else None
    if start is None or CANARY in trace:
        return None  # not a host, or the tier detection's canary (its attacks are not a bot's needs)
    return [match.group(1) for line in lines[start:] if (match := CALL.match(line))]


CLONE = re.compile(r"^(clone3?)\((.*)\) = (\d+)$")


def trace_match(tier: str, bot: str, folder: Path) -> collections.Counter[str]:
    out = folder / "t"
    command = ["strace", "-f", "-ff", "-qq", "-s", "512", "-o", str(out), sys.executable, "-c", MATCH, tier, bot]
    subprocess.run(command, cwd=REPO, check=True, capture_output=True, timeout=600)
    traces = {int(path.suffix.lstrip(".")): path.read_text(errors="replace") for path in folder.glob("t.*")}
    for path in folder.glob("t.*"):
        path.unlink()
    threads: dict[int, list[int]] = collections.defaultdict(list)  # thread ids by the task that made them
    for task, text in traces.items():
        for line in text.splitlines():
            match = CLONE.match(line)
            if match and "CLONE_THREAD" in match.group(2):
                threads[task].append(int(match.group(3)))
    counts: collections.Counter[str] = collections.Counter()
    pending = []
    for task, text in traces.items():
        calls = confined_calls(text, tier)
        if calls is not None:
            counts.update(calls)
            pending += threads[task]
    while pending:  # a host's threads start confined (and so do theirs)
        task = pending.pop()
        counts.update(match.group(1) for line in traces.get(task, "").splitlines() if (match := CALL.match(line)))
        pending += threads[task]
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tier", action="append", help="only this tier (repeatable); default: every working one")
    parser.parse_args()
    if shutil.which("strace") is None:
        print("strace is not installed (Debian package strace)", file=sys.stderr)
        return 2
    tiers = detect_tier().working
    totals: dict[str, collections.Counter[str]] = {}
    with tempfile.TemporaryDirectory(prefix="lineit-syscalls-") as scratch:
        for tier in tiers:
            totals[tier] = collections.Counter()
            for bot in BOTS:
                totals[tier] += trace_match(tier, bot, Path(scratch))
    allowed = set(allowed_calls()) | set(HOST_STAGE)
    seen = set().union(*totals.values()) if totals else set()
    print(f"system calls made by confined bot hosts ({', '.join(tiers)}; {len(BOTS)} bots each)")
    print(f"{'call':<24}" + "".join(f"{tier:>12}" for tier in tiers) + "  allow-list")
    for name in sorted(seen):
        row = "".join(f"{totals[tier][name]:>12}" for tier in tiers)
        verdict = "ENOSYS" if name == "clone3" else "host stage" if name in HOST_STAGE else "allowed"
        print(f"{name:<24}{row}  {verdict if name in allowed or name == 'clone3' else 'DENIED'}")
    unseen = sorted(allowed - seen)
    print(f"allowed but not seen in these runs ({len(unseen)}): {', '.join(unseen)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
