"""The whole-history fit (lineit.stats.plackett_luce): its time over a million synthetic games,
and how often its 95% intervals hold the planted strengths.

    .venv/bin/python benchmarks/ratings_fit.py                # 1,000,000 games, 2,000 versions
    .venv/bin/python benchmarks/ratings_fit.py --versions 10000 --simulations 0

Games are generated in memory: tables of 2 to 5 versions drawn at random, each in a deal group
of one deal played under every seat rotation (as the platform's duplicate deals), finishing
orders drawn from the Plackett-Luce model itself (strength + Gumbel noise, sorted) with
optionally a deck effect: each deal gives each seat a bonus (normal, --deck-effect units wide),
which every version of the table gets once over the rotations, so the games of one deal are
correlated as on the platform.

Printed: the time to build the arrays and to fit them (intervals included); then, over
--simulations smaller pools, the coverage of the curvature intervals and of the deal-group
bootstrap on planted strengths (no deck effect: the model holds, so 95% is the target), and
with a deck effect the bootstrap's width against the curvature's (the truth is then not the
model's, so coverage is not the measure: the widths say how the two read correlated games).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from lineit.stats.plackett_luce import ELO_PER_UNIT, bootstrap_intervals, fit_arrays
from lineit.stats.plackett_luce_model import Games, block_from_arrays

Z = 1.959963984540054


def synthetic(
    rng: np.random.Generator, versions: int, games: int, *, deck_effect: float = 0.0
) -> tuple[np.ndarray, Games]:
    """Planted strengths (normal, sd 1 = 174 Elo) and about ``games`` games in deal groups."""
    theta = rng.normal(0.0, 1.0, versions)
    blocks = []
    group_base = 0
    for size in (2, 3, 4, 5):
        deals = games // 4 // size
        tables = np.argsort(rng.random((deals, versions)), axis=1)[:, :size] if versions <= 64 else None
        if tables is None:
            tables = rng.integers(0, versions, (deals, size))
            while True:
                ordered = np.sort(tables, axis=1)
                repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
                if not repeated.any():
                    break
                tables[repeated] = rng.integers(0, versions, (int(repeated.sum()), size))
        bonus = rng.normal(0.0, deck_effect, (deals, size)) if deck_effect else np.zeros((deals, size))
        players, ranks, groups = [], [], []
        for rotation in range(size):
            seats = np.roll(tables, rotation, axis=1)  # seat s holds this version
            utility = theta[seats] + bonus + rng.gumbel(size=(deals, size))
            players.append(seats)
            ranks.append(np.argsort(np.argsort(-utility, axis=1), axis=1) + 1)
            groups.append(group_base + np.arange(deals))
        group_base += deals
        blocks.append(block_from_arrays(np.concatenate(players), np.concatenate(ranks), np.concatenate(groups)))
    return theta, Games(versions, tuple(blocks))


def timing(versions: int, games: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    theta, arrays = synthetic(rng, versions, games)
    built = time.perf_counter() - started
    started = time.perf_counter()
    fit, ratings, deviations = fit_arrays(arrays)
    fitted = time.perf_counter() - started
    truth = ELO_PER_UNIT * (theta - theta.mean()) + 1500
    inside = np.abs(ratings - truth) <= Z * deviations
    print(
        f"fit of {arrays.games:,} games among {versions:,} versions: {fitted:.1f} s "
        f"({fit.iterations} Newton iterations, {fit.interval} intervals; arrays built in {built:.1f} s)"
    )
    print(f"  mean 95% half-width {Z * deviations.mean():.1f} Elo; planted strengths inside: {inside.mean():.1%}")


def coverage(simulations: int, versions: int, games: int, replicates: int, deck_effect: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    curvature_inside, bootstrap_inside, ratios = [], [], []
    for simulation in range(simulations):
        theta, arrays = synthetic(rng, versions, games, deck_effect=deck_effect)
        fit, ratings, deviations = fit_arrays(arrays)
        low, high = bootstrap_intervals(arrays, fit, replicates=replicates, seed=simulation)
        truth = ELO_PER_UNIT * (theta - theta.mean()) + 1500
        curvature_inside.append(np.abs(ratings - truth) <= Z * deviations)
        bootstrap_inside.append((low <= truth) & (truth <= high))
        ratios.append((high - low) / (2 * Z * deviations))
    label = f"deck effect {deck_effect:g}" if deck_effect else "no deck effect"
    print(
        f"{simulations} pools of {versions} versions, {arrays.games:,} games each ({label}), "
        f"{replicates} bootstrap replicates:"
    )
    print(
        f"  coverage of the planted strengths: curvature {np.mean(curvature_inside):.1%}, "
        f"deal-group bootstrap {np.mean(bootstrap_inside):.1%}; "
        f"bootstrap width / curvature width {np.mean(ratios):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--versions", type=int, default=2000)
    parser.add_argument("--simulations", type=int, default=20)
    parser.add_argument("--pool", type=int, default=40, help="versions per coverage simulation")
    parser.add_argument("--pool-games", type=int, default=4000)
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--deck-effect", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    timing(args.versions, args.games, args.seed)
    if args.simulations:
        coverage(args.simulations, args.pool, args.pool_games, args.replicates, 0.0, args.seed)
        coverage(args.simulations, args.pool, args.pool_games, args.replicates, args.deck_effect, args.seed)


if __name__ == "__main__":
    main()
