"""How often the results table's 95% win-rate interval holds the true win rate (its coverage),
and how often it is impossible (outside [0, 1]) or a point, before and after issue 14.

Simulated two-player matches with duplicate deals (each deck played twice, seats swapped), whose
true win rate p is known, in three models of a deck's effect on its two games:

* independent: every game is a win with probability p;
* deck luck (+): a deck is good or bad for the bot in both seats (q ~ Beta with mean p), so the
  two games of a deck are positively correlated;
* seat luck (-): a deck favours one seat, so the bot wins w.p. p + d in it and p - d in the other
  (negatively correlated: what duplicate deals are for).

before: mean +- t * sd / sqrt(decks) over the decks' win shares (the old table);
after: Wilson over the Kish effective number of games (lineit.stats.intervals.grouped_rate).

    .venv/bin/python benchmarks/intervals.py [--trials 2000] [--seed 1]   # about a minute
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lineit.stats.intervals import grouped_rate

_OLD_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
             12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042}  # fmt: skip


def before(groups: list[list[float]]) -> tuple[float, float, float]:
    """The old table's interval, as it was computed (botkit/summary.py before issue 14)."""
    values = [sum(g) / len(g) for g in groups]
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, -math.inf, math.inf
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    t = 1.96 if n - 1 > 30 else _OLD_T975[max(d for d in _OLD_T975 if d <= n - 1)]
    half = t * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def deal(model: str, p: float, rng: random.Random) -> list[float]:
    if model == "independent":
        return [float(rng.random() < p), float(rng.random() < p)]
    if model == "deck luck (+)":
        q = rng.betavariate(2 * p / (1 - p) if p < 1 else 1e9, 2.0) if p < 1 else 1.0
        return [float(rng.random() < q), float(rng.random() < q)]
    d = min(p, 1 - p)  # seat luck (-): as strong as p allows
    return [float(rng.random() < p + d), float(rng.random() < p - d)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"{args.trials} simulated matches per row; coverage of the 95% interval (should be about 95%)")
    print(
        f"{'model':<14} {'p':>5} {'games':>5}   {'before: cover impossible point':>32}   {'after: cover impossible point':>31}"
    )
    for model in ("independent", "deck luck (+)", "seat luck (-)"):
        for p in (0.5, 0.75, 0.95):
            for games in (4, 10, 20, 100, 1000):
                tallies = {"before": [0, 0, 0], "after": [0, 0, 0]}
                for _ in range(args.trials):
                    groups = [deal(model, p, rng) for _ in range(games // 2)]
                    for name, method in (("before", before), ("after", grouped_rate)):
                        _, low, high = method(groups)
                        tally = tallies[name]
                        tally[0] += low <= p <= high
                        tally[1] += low < 0.0 or high > 1.0
                        tally[2] += low == high
                cells = [
                    f"{100 * c / args.trials:5.1f}% {100 * i / args.trials:9.1f}% {100 * z / args.trials:6.1f}%"
                    for c, i, z in tallies.values()
                ]
                print(f"{model:<14} {p:>5} {games:>5}   {cells[0]:>32}   {cells[1]:>31}")


if __name__ == "__main__":
    main()
