"""Swiss pairing at large fields: seconds per round at 128, 256, 512 and 1,024 entrants, the
pairing of this tree against the one of an older revision (networkx over the complete graph).

    python benchmarks/swiss_large.py [--sizes 128 256 512 1024] [--rounds 3] [--table-size 2]
                                     [--before REV] [--limit 60] [--no-before]

Each size plays a Swiss of ``--rounds`` rounds (random results, the same seeds for both codes),
timing each round's ``first_round`` / ``next_round`` call: standings, history and pairing, what
``tournament_advance`` computes with the row unlocked. The old code is the ``lineit`` folder of
``--before`` (default: the revision before rustworkx came in), unpacked with ``git archive``
into a temporary folder and run in a child process; a round of it that takes longer than
``--limit`` seconds is stopped and reported as "> N s" (a round of 1,024 entrants takes many
minutes). Prints wall seconds per round (mean and worst of the rounds) and, for this tree, CPU
seconds too (the machine may be shared: CPU time is what the pairing itself costs), and the
ratio old / new of the mean wall seconds measured in this run. Goal: at most 2 s a round at
1,024 entrants.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "b981ef1^"  # the last revision pairing with networkx over the complete graph


def play(size: int, rounds: int, table_size: int) -> None:
    """Child mode: play the Swiss and print one JSON line per round, as soon as it is paired."""
    from lineit.formats import SWISS, Entrant, Options, first_round, next_round, outcome_by_order

    rng = random.Random(size)
    entrants = [Entrant(id=100 + index, rating=2000 - 10 * (index // 2), name=f"bot{index}") for index in range(size)]
    options = Options(table_size=table_size, rounds=rounds)
    state = None
    for number in range(1, rounds + 1):
        wall, cpu = time.perf_counter(), time.process_time()
        if state is None:
            state = first_round(SWISS, entrants, options, seed=size)
        else:
            assert state.pending is not None
            outcomes = []
            for pairing in state.pending.pairings:
                if not pairing.bye:
                    order = list(pairing.entrants)
                    rng.shuffle(order)
                    outcomes.append(outcome_by_order(pairing, order))
            state = next_round(state, outcomes)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(json.dumps({"round": number, "wall": wall, "cpu": cpu}), flush=True)


def measure(source: Path, size: int, rounds: int, table_size: int, limit: float | None) -> tuple[list[dict], bool]:
    """The rounds a child running the ``lineit`` of ``source`` paired, and whether it was stopped."""
    env = dict(os.environ, PYTHONPATH=str(source), LINEIT_PURE_ENGINE="1")
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(size), str(rounds), str(table_size)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=source)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in child.stdout or []], daemon=True).start()
    done: list[dict] = []
    while len(done) < rounds:
        try:
            done.append(json.loads(lines.get(timeout=limit)))
        except queue.Empty:
            child.kill()
            child.wait()
            return done, True
    child.wait()
    return done, False


def summary(rounds: list[dict], stopped: bool, limit: float, key: str = "wall") -> str:
    if stopped:
        return f"> {limit:.0f} s" + (f" (round {len(rounds) + 1})" if rounds else "")
    values = [entry[key] for entry in rounds]
    return f"{sum(values) / len(values):7.2f} s (worst {max(values):6.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[128, 256, 512, 1024])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--table-size", type=int, default=2)
    parser.add_argument("--before", default=BEFORE, help="the revision whose pairing to compare with")
    parser.add_argument("--no-before", action="store_true", help="time this tree only")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds before a round of the old code is stopped")
    parser.add_argument("--child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        play(*args.child)
        return
    with tempfile.TemporaryDirectory(prefix="swiss-before-") as old_tree:
        if not args.no_before:
            archive = subprocess.run(
                ["git", "archive", args.before, "lineit"], cwd=ROOT, capture_output=True, check=True
            )
            subprocess.run(["tar", "-x", "-C", old_tree], input=archive.stdout, check=True)
        print(f"Swiss at tables of {args.table_size}, {args.rounds} rounds, seconds per round (the pairing of each)")
        print(f"{'entrants':>8}  {'new (wall)':>24}  {'new (CPU)':>24}  {'old ' + args.before:>24}  old/new")
        for size in args.sizes:
            new, _ = measure(ROOT, size, args.rounds, args.table_size, None)
            new_mean = sum(entry["wall"] for entry in new) / len(new)
            old_text, ratio = "(not run)", ""
            if not args.no_before:
                old, stopped = measure(Path(old_tree), size, args.rounds, args.table_size, args.limit)
                old_text = summary(old, stopped, args.limit)
                if stopped:
                    ratio = f"> {args.limit / new_mean:.0f}"
                else:
                    ratio = f"{sum(entry['wall'] for entry in old) / len(old) / new_mean:.0f}"
            print(
                f"{size:>8}  {summary(new, False, 0):>24}  {summary(new, False, 0, 'cpu'):>24}  {old_text:>24}  {ratio}",
                flush=True,
            )


if __name__ == "__main__":
    main()
