"""The results table of a match: per entrant, mean score and win rate with 95% intervals.

Games played on the same deal (duplicate deals) are not independent, so each deal group is
one observation: an entrant's mean score and win share over the group. The mean score's
interval is mean +- t * sd / sqrt(groups), with Student's t for the number of groups; the win
rate's is Wilson's [low, high] over the games the groups are worth as independent ones
(stats/intervals.py: grouped_rate), so it never leaves [0, 1].
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from lineit.stats.intervals import grouped_rate, mean_interval

from .referee import MatchResult


@dataclass(frozen=True)
class EntrantSummary:
    entrant: int
    name: str
    games: int
    mean_score: float
    score_interval: float
    win_rate: float  # a shared win among k players counts 1/k
    win_interval: float  # the larger distance from win_rate to win_low or win_high
    mean_rank: float
    failures: int
    forfeits: int
    mean_move_ms: float
    max_move_ms: float
    win_low: float = 0.0  # the win rate's 95% Wilson interval
    win_high: float = 1.0


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
        win_rate, win_low, win_high = grouped_rate(list(wins[entrant].values()))
        played = len(ranks[entrant])
        rows.append(
            EntrantSummary(
                entrant=entrant,
                name=name,
                games=played,
                mean_score=score_mean,
                score_interval=score_half,
                win_rate=win_rate,
                win_interval=max(win_rate - win_low, win_high - win_rate),
                mean_rank=sum(ranks[entrant]) / played if played else 0.0,
                failures=failures[entrant],
                forfeits=forfeits[entrant],
                mean_move_ms=1000 * think[entrant] / decisions[entrant] if decisions[entrant] else 0.0,
                max_move_ms=1000 * slowest[entrant],
                win_low=win_low,
                win_high=win_high,
            )
        )
    return rows
