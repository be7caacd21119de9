"""The results table of a match: per entrant, mean score and win rate with 95% intervals.

Games played on the same deal (duplicate deals) are not independent, so each deal group is
one observation: an entrant's mean score and win share over the group. Intervals are
mean +- t * sd / sqrt(groups), with Student's t for the number of groups.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from .referee import MatchResult

# Two-sided 97.5% quantiles of Student's t, by degrees of freedom (normal beyond 30).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
         12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042}  # fmt: skip


def t_quantile(degrees: int) -> float:
    if degrees > 30:
        return 1.96
    return _T975[max(d for d in _T975 if d <= degrees)]


def mean_interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval (inf with fewer than two values)."""
    count = len(values)
    mean = sum(values) / count if count else 0.0
    if count < 2:
        return mean, math.inf
    variance = sum((value - mean) ** 2 for value in values) / (count - 1)
    return mean, t_quantile(count - 1) * math.sqrt(variance / count)


@dataclass(frozen=True)
class EntrantSummary:
    entrant: int
    name: str
    games: int
    mean_score: float
    score_interval: float
    win_rate: float  # a shared win among k players counts 1/k
    win_interval: float
    mean_rank: float
    failures: int
    forfeits: int
    mean_move_ms: float
    max_move_ms: float


def summarize(result: MatchResult) -> list[EntrantSummary]:
    n = len(result.names)
    scores: list[dict[int, list[float]]] = [defaultdict(list) for _ in range(n)]
    wins: list[dict[int, list[float]]] = [defaultdict(list) for _ in range(n)]
    ranks: list[list[int]] = [[] for _ in range(n)]
    failures = [0] * n
    forfeits = [0] * n
    think = [0.0] * n
    decisions = [0] * n
    slowest = [0.0] * n
    for game in result.games:
        winners = game.ranks.count(1)
        for seat, entrant in enumerate(game.seats):
            scores[entrant][game.deal].append(game.scores[seat])
            wins[entrant][game.deal].append(1.0 / winners if game.ranks[seat] == 1 else 0.0)
            ranks[entrant].append(game.ranks[seat])
            forfeits[entrant] += seat in game.forfeits
            timing = game.timings[seat]
            think[entrant] += timing.total_seconds
            decisions[entrant] += timing.decisions
            slowest[entrant] = max(slowest[entrant], timing.max_seconds)
        for failure in game.failures:
            failures[game.seats[failure.seat]] += 1
    rows = []
    for entrant, name in enumerate(result.names):
        score_mean, score_half = mean_interval([sum(v) / len(v) for v in scores[entrant].values()])
        win_mean, win_half = mean_interval([sum(v) / len(v) for v in wins[entrant].values()])
        played = len(ranks[entrant])
        rows.append(
            EntrantSummary(
                entrant=entrant,
                name=name,
                games=played,
                mean_score=score_mean,
                score_interval=score_half,
                win_rate=win_mean,
                win_interval=win_half,
                mean_rank=sum(ranks[entrant]) / played if played else 0.0,
                failures=failures[entrant],
                forfeits=forfeits[entrant],
                mean_move_ms=1000 * think[entrant] / decisions[entrant] if decisions[entrant] else 0.0,
                max_move_ms=1000 * slowest[entrant],
            )
        )
    return rows


Z_95 = 1.959963984540054


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default); (0, 1) without trials.

    Half successes (ties counted as half a win) are allowed: the interval uses p = successes/n."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    margin = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - margin), min(1.0, centre + margin))
