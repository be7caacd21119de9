"""In-process decisions per second through the referee, this tree against another one.

Plays in-process matches of the built-in random bot (the cheapest bot, so the referee's and the
observation's cost shows most) and prints decisions per second; with ``--before TREE`` (a git
worktree of another commit, its engine built with scripts/build_engine.py) it measures both trees
in alternating child processes on the same CPU and prints the ratio of the medians, so the
machine's noise falls on both alike. Issue 14 measured what the bots' private copies of their
observations (botkit/players.py) cost this way:

    git worktree add /tmp/h4-before <commit> && (cd /tmp/h4-before && python scripts/build_engine.py)
    python benchmarks/in_process.py --before /tmp/h4-before

    python benchmarks/in_process.py [--before TREE] [--players N] [--games G] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def measure(players: int, games: int) -> float:
    from lineit.botkit.players import InProcessPlayer
    from lineit.botkit.referee import run_match
    from lineit.botkit.schedule import MatchSpec
    from lineit.botkit.sources import resolve_bot

    spec = MatchSpec(num_players=players, games=games, seed=1)
    bots = [InProcessPlayer(resolve_bot("random")) for _ in range(players)]
    started = time.perf_counter()
    result = run_match(spec, bots)
    elapsed = time.perf_counter() - started
    return sum(len(game.replay["actions"]) for game in result.games) / elapsed


def child(tree: Path, players: int, games: int) -> float:
    command = [sys.executable, __file__, "--child", str(tree), f"--players={players}", f"--games={games}"]
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    return float(subprocess.run(command, env=environment, capture_output=True, text=True, check=True).stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another tree to measure against this one")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200, help="games per measurement (default 200)")
    parser.add_argument("--rounds", type=int, default=7, help="alternating measurements per tree (default 7)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    if args.child:
        sys.path.insert(0, str(args.child))
        print(measure(args.players, args.games))
        return
    trees = {"after": HERE} | ({"before": args.before.resolve()} if args.before else {})
    rates: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            rates[name].append(child(tree, args.players, args.games))
    print(
        f"in-process decisions/s, {args.players} random bots, {args.games} games a measurement, median of {args.rounds}:"
    )
    for name, tree in trees.items():
        found = rates[name]
        print(f"  {name:>6} {statistics.median(found):>9.0f}  (min {min(found):.0f}, max {max(found):.0f})  {tree}")
    if args.before:
        ratios = [after / before for after, before in zip(rates["after"], rates["before"], strict=True)]
        print(
            f"  after / before: {statistics.median(rates['after']) / statistics.median(rates['before']):.3f} "
            f"(round by round: median {statistics.median(ratios):.3f}, {min(ratios):.3f} to {max(ratios):.3f})"
        )


if __name__ == "__main__":
    main()
