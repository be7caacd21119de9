"""Elo recompute time for synthetic game results (goal: 1,000,000 games under 10 s).

    python benchmarks/elo.py [--games 1000000] [--bots 200]

Games of 2 to 5 players drawn from a seeded generator, folded through the same EloTable the
platform's rating writer and recompute command use. Pure Python, no database.
"""

from __future__ import annotations

import argparse
import random
import time

from lineit.stats.elo import EloTable


def synthetic_games(count: int, bots: int, seed: int) -> list[tuple[list[int], list[int]]]:
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        size = rng.choice((2, 2, 3, 4, 5))
        players = rng.sample(range(bots), size)
        games.append((players, [rng.randint(1, size) for _ in players]))
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--bots", type=int, default=200)
    args = parser.parse_args()
    games = synthetic_games(args.games, args.bots, seed=1)
    started = time.perf_counter()
    table: EloTable[int] = EloTable()
    apply = table.apply
    for players, ranks in games:
        apply(players, ranks)
    elapsed = time.perf_counter() - started
    print(
        f"Elo recompute: {args.games:,} games ({args.bots} bots, 2-5 players) in {elapsed:.2f} s "
        f"({args.games / elapsed:,.0f} games/s); goal < 10 s: {'met' if elapsed < 10 else 'missed'}"
    )


if __name__ == "__main__":
    main()
