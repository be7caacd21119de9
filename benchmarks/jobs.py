"""Games per second of ``lineit match --jobs N``: built-in bots, sandboxed, as a user runs it.

    .venv/bin/python benchmarks/jobs.py --games 200 --rounds 3

Each round runs the command once per --jobs value (1, 2 and the usable cores, or --jobs),
interleaved, so that a load that comes and goes on the machine falls on every value alike. A
run is the whole command, as a user waits for it: the start of the worker processes and of
their sandboxes included. It prints each run, then per pairing and --jobs the median games per
second and its ratio to --jobs 1 (the ratio of the medians, each round's runs being
interleaved). Also printed: the load average before and after, since on a shared machine it
bounds what parallel games can gain.

First it measures why the games run in processes rather than threads of one process: the share
of a sandboxed match's wall time that its referee (the engine, the observations, the pipes)
spends on the CPU in the calling process. Threads would share one interpreter lock, so N
referees in threads could go at most 1 / share times as fast as one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
PAIRINGS = (("random", "random"), ("greedy", "heuristic"))


def run_once(bots: tuple[str, str], games: int, jobs: int) -> float:
    """Games per second of one whole command."""
    command = [sys.executable, "-m", "lineit.cli", "match", *bots, "--games", str(games), "--jobs", str(jobs)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPOSITORY, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    return games / elapsed


def referee_share(bots: tuple[str, str], games: int) -> float:
    """CPU time of this process over wall time, for one sandboxed match played here."""
    from lineit.botkit.schedule import MatchSpec
    from lineit.botkit.sources import resolve_bot
    from lineit.sandbox import run_sandboxed_match

    spec = MatchSpec(num_players=2, games=games)
    started, cpu = time.perf_counter(), time.process_time()
    run_sandboxed_match(spec, [resolve_bot(bot) for bot in bots])
    return (time.process_time() - cpu) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per run (default 200)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--jobs", type=int, nargs="+", help="the --jobs values (default 1, 2 and the usable cores)")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    values = args.jobs or sorted({1, 2, cores})
    print(f"usable cores: {cores}; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for bots in PAIRINGS:
        share = referee_share(bots, min(args.games, 100))
        print(f"referee CPU / wall, {' v '.join(bots)}: {share:.0%} (threads: at most {1 / share:.1f}x one job)")
    rates: dict[tuple[tuple[str, str], int], list[float]] = {}
    for round_number in range(1, args.rounds + 1):
        for bots in PAIRINGS:
            for jobs in values:
                rate = run_once(bots, args.games, jobs)
                rates.setdefault((bots, jobs), []).append(rate)
                print(f"round {round_number}: {' v '.join(bots):<20} --jobs {jobs:<3} {rate:7.1f} games/s", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    print(f"{'pairing':<20} {'--jobs':>6} {'games/s (median)':>17} {'x --jobs 1':>11}")
    for bots in PAIRINGS:
        base = statistics.median(rates[(bots, values[0])])
        for jobs in values:
            median = statistics.median(rates[(bots, jobs)])
            print(f"{' v '.join(bots):<20} {jobs:>6} {median:>17.1f} {median / base:>11.2f}")


if __name__ == "__main__":
    main()
