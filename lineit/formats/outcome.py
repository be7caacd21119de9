"""How a match of several games between 2 to 5 entrants decides its places and points.

Entrants are ordered by mean rank over the games (1 = best; a forfeited game ranks last),
then by mean score (higher is better). Entrants equal on both share a place; elimination
brackets then send the better seed on (see bracket.py), round robin and Swiss give each half
a point for the tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .model import EntrantId, EntrantResult, FormatError, MatchOutcome, Pairing


@dataclass(frozen=True)
class GameResult:
    """One game of a match: ``entrants`` in seat order, with each seat's rank and score."""

    entrants: tuple[EntrantId, ...]
    ranks: tuple[int, ...]
    scores: tuple[float, ...]


def decide_match(pairing: Pairing, games: Sequence[GameResult]) -> MatchOutcome:
    """The outcome of ``pairing``'s match from the games it played."""
    if pairing.bye:
        raise FormatError("a bye plays no match")
    if not games:
        raise FormatError(f"round {pairing.round} table {pairing.table}: a match needs at least one game")
    players = set(pairing.entrants)
    ranks: dict[EntrantId, list[int]] = {entrant: [] for entrant in pairing.entrants}
    scores: dict[EntrantId, list[float]] = {entrant: [] for entrant in pairing.entrants}
    for game in games:
        if set(game.entrants) != players or len(game.entrants) != len(players):
            raise FormatError(f"a game of {list(game.entrants)} does not belong to the match of {list(players)}")
        for entrant, rank, score in zip(game.entrants, game.ranks, game.scores):
            ranks[entrant].append(rank)
            scores[entrant].append(score)
    means = {
        entrant: (sum(ranks[entrant]) / len(games), sum(scores[entrant]) / len(games)) for entrant in pairing.entrants
    }
    return outcome_from_means(pairing, means, len(games))


def outcome_from_means(pairing: Pairing, means: dict[EntrantId, tuple[float, float]], games: int) -> MatchOutcome:
    """Places and points from each entrant's (mean rank, mean score)."""

    def key(entrant: EntrantId) -> tuple[float, float]:
        mean_rank, mean_score = means[entrant]
        return (mean_rank, -mean_score)

    opponents = len(pairing.entrants) - 1
    results = []
    for entrant in sorted(pairing.entrants, key=lambda e: (key(e), pairing.entrants.index(e))):
        mine = key(entrant)
        better = sum(1 for other in pairing.entrants if key(other) < mine)
        below = sum(1 for other in pairing.entrants if key(other) > mine)
        tied = opponents - better - below
        mean_rank, mean_score = means[entrant]
        results.append(
            EntrantResult(
                entrant=entrant,
                place=better + 1,
                points=(below + tied / 2) / opponents,
                mean_rank=mean_rank,
                mean_score=mean_score,
                games=games,
            )
        )
    return MatchOutcome(round=pairing.round, table=pairing.table, results=tuple(results))


def outcome_by_order(pairing: Pairing, order: Sequence[EntrantId], games: int = 1) -> MatchOutcome:
    """An outcome with distinct places in ``order`` (best first): handy for tests and simulations."""
    if sorted(order) != sorted(pairing.entrants):
        raise FormatError(f"{list(order)} are not the entrants of the match {list(pairing.entrants)}")
    means = {entrant: (float(place), 0.0) for place, entrant in enumerate(order, start=1)}
    return outcome_from_means(pairing, means, games)
