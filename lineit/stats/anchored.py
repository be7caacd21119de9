"""One player's Plackett-Luce rating with everyone else's held fixed: the quick estimate of a
newcomer (a version in placement) between two whole-history fits.

The model is plackett_luce's (Breslow's rule for ties, the Elo scale, a weak Gaussian prior
centred on BASE_RATING), but only the subject's strength is free: its opponents sit at their
ratings from the last fit (or their Elo). The log-likelihood is then concave in one variable, so a
few Newton steps find the maximum, and the 95% interval comes from its curvature there. The
interval takes the opponents' ratings as known, so it is narrower than the whole-history fit's
would be; placement uses it only to decide when a newcomer has played enough, and the next fit
rates it with everyone.

Pure Python, no numpy: a placement has a few hundred games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .intervals import Z_95
from .plackett_luce import BASE_RATING, ELO_PER_UNIT, PRIOR_ELO


@dataclass(frozen=True)
class Table:
    """One game: each seat's rating (the subject's seat holds any value: it is ignored), each
    seat's rank (1 is first, equal ranks tie) and the subject's seat."""

    ratings: Sequence[float]
    ranks: Sequence[int]
    subject: int


@dataclass(frozen=True)
class AnchoredRating:
    rating: float
    low: float
    high: float
    games: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def _stages(table: Table) -> list[tuple[list[int], list[int]]]:
    """The stages of a game under Breslow's rule: (seats still to place, seats placed at this
    stage), best rank first."""
    order = sorted(set(table.ranks))
    remaining = list(range(len(table.ranks)))
    stages = []
    for rank in order[:-1]:  # the last stage chooses the only ones left: it carries no information
        placed = [seat for seat in remaining if table.ranks[seat] == rank]
        stages.append((list(remaining), placed))
        remaining = [seat for seat in remaining if seat not in placed]
    return stages


def anchored_rating(
    tables: Sequence[Table], *, prior_elo: float | None = PRIOR_ELO, iterations: int = 50
) -> AnchoredRating:
    """The subject's maximum-likelihood (posterior mode, with the prior) rating over ``tables``
    and its 95% interval, in Elo points. No table: the prior alone (BASE_RATING, its interval)."""
    precision = 0.0 if prior_elo is None else (ELO_PER_UNIT / prior_elo) ** 2
    if prior_elo is None and not tables:
        raise ValueError("no games and no prior: nothing to estimate")
    # The stages that involve the subject, each as (the subject placed?, how many placed, the
    # others' strengths in exp(theta) units).
    terms: list[tuple[bool, int, float]] = []
    for table in tables:
        others = {seat: math.exp((rating - BASE_RATING) / ELO_PER_UNIT) for seat, rating in enumerate(table.ratings)}
        for remaining, placed in _stages(table):
            if table.subject not in remaining:
                break
            rest = sum(others[seat] for seat in remaining if seat != table.subject)
            terms.append((table.subject in placed, len(placed), rest))
    theta = 0.0
    information = precision
    for _ in range(iterations):
        strength = math.exp(theta)
        gradient = -precision * theta
        information = precision
        for chosen, count, rest in terms:
            share = strength / (strength + rest)
            gradient += (1.0 if chosen else 0.0) - count * share
            information += count * share * (1.0 - share)
        if information <= 0.0:
            raise ValueError("the games do not bound the rating (every game won or lost, and no prior)")
        step = gradient / information
        step = max(-2.0, min(2.0, step))  # in theta units: at most about 350 Elo a step
        theta += step
        if abs(step) < 1e-10:
            break
    half = Z_95 / math.sqrt(information) * ELO_PER_UNIT
    rating = BASE_RATING + theta * ELO_PER_UNIT
    return AnchoredRating(rating=rating, low=rating - half, high=rating + half, games=len(tables))
