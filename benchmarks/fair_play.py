"""What the fair-play invariant costs a match: one bot process per lane (schedule.lane_of: no
process plays two games of one deal) against the previous way, one process per entrant for the
whole match. Run: .venv/bin/python benchmarks/fair_play.py [--games 100] [--runs 5]

Both ways are timed in the same run, alternately, for 2 and 5 players: the random bot in the
sandbox (run_sandboxed_match), 100 games of duplicate deals. Printed per way: the wall time
(median, p10, p90 over the runs), the CPU time of this process and of the bots (children), and
the bot starts; then the added cost per match in ms and in % of the previous wall time. The
load average is printed beside the figures: the machines are shared.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

from lineit.botkit.limits import Limits
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import builtin_source
from lineit.sandbox import SandboxedPlayer, TurnGate, detect_tier


class Counted(SandboxedPlayer):
    """A sandboxed player that counts its starts; ``one_process`` plays every lane itself (the
    previous way: one process for every game of its entrant)."""

    starts = 0

    def __init__(self, *args: object, one_process: bool = False, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.one_process = one_process

    def start(self, timeout: float) -> None:
        if self.one_process and self._channel is not None:
            return  # already running: the other lanes share it
        Counted.starts += 1
        super().start(timeout)

    def fresh(self) -> SandboxedPlayer:
        if self.one_process:
            return self
        copy = Counted(self.source, self.limits, tier=self.tier, cpu_seconds=self.cpu_seconds, gate=self._gate)
        self._copies.append(copy)
        return copy


def one_match(players: int, games: int, one_process: bool, tier: str) -> tuple[float, float, float, int]:
    """(wall s, own CPU s, bots' CPU s, starts) of one match."""
    limits = Limits()
    gate = TurnGate()
    random = builtin_source("random")
    entrants = [Counted(random, limits, tier=tier, gate=gate, one_process=one_process) for _ in range(players)]
    Counted.starts = 0
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        run_match(MatchSpec(num_players=players, games=games, seed=11), entrants, limits=limits, tier=tier)
    finally:
        for entrant in entrants:
            entrant.cleanup()
    wall = time.perf_counter() - started
    own_after, children_after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own_after.ru_utime + own_after.ru_stime - own.ru_utime - own.ru_stime
    bots = children_after.ru_utime + children_after.ru_stime - children.ru_utime - children.ru_stime
    return wall, cpu, bots, Counted.starts


def spread(values: list[float]) -> str:
    ordered = sorted(values)
    low = ordered[max(0, round(0.1 * (len(ordered) - 1)))]
    high = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return f"{statistics.median(values):6.2f} s (p10 {low:.2f}, p90 {high:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tier = detect_tier().name
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # as run_sandboxed_match pins a match
    print(f"tier {tier}, {args.games} games of the random bot, {args.runs} runs each, load {os.getloadavg()}")
    for players in (2, 5):
        figures: dict[bool, list[tuple[float, float, float, int]]] = {True: [], False: []}
        for _ in range(args.runs):
            for one_process in (True, False):  # alternately: the machine's load hits both alike
                figures[one_process].append(one_match(players, args.games, one_process, tier))
        for one_process, label in ((True, "one process per entrant (before)"), (False, "one process per lane (now)")):
            runs = figures[one_process]
            print(
                f"{players} players, {label:34}: wall {spread([r[0] for r in runs])}, "
                f"CPU referee {statistics.median(r[1] for r in runs):.2f} s, "
                f"bots {statistics.median(r[2] for r in runs):.2f} s, starts {runs[0][3]}"
            )
        before = statistics.median(r[0] for r in figures[True])
        now = statistics.median(r[0] for r in figures[False])
        added = (now - before) * 1000
        print(f"{players} players: + {added:.0f} ms a match ({100 * (now - before) / before:+.1f}% of {before:.2f} s)")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
