"""The anchored Plackett-Luce rating: one player free, the others fixed."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lineit.stats.anchored import Table, anchored_rating
from lineit.stats.plackett_luce import BASE_RATING, ELO_PER_UNIT, PRIOR_ELO

Z = 1.959963984540054


def two_player(wins: int, losses: int, opponent: float = 1500.0) -> list[Table]:
    won = [Table(ratings=[0.0, opponent], ranks=[1, 2], subject=0)] * wins
    lost = [Table(ratings=[0.0, opponent], ranks=[2, 1], subject=0)] * losses
    return won + lost


def test_two_players_without_prior_is_the_logit_of_the_score() -> None:
    fit = anchored_rating(two_player(30, 10, opponent=1600.0), prior_elo=None)
    assert fit.rating == pytest.approx(1600.0 + math.log(3.0) * ELO_PER_UNIT, abs=1e-6)
    information = 40 * 0.75 * 0.25
    assert fit.half_width == pytest.approx(Z / math.sqrt(information) * ELO_PER_UNIT, rel=1e-6)
    assert fit.games == 40


def test_no_game_is_the_prior_alone() -> None:
    fit = anchored_rating([])
    assert fit.rating == BASE_RATING
    assert fit.half_width == pytest.approx(Z * PRIOR_ELO)
    with pytest.raises(ValueError, match="nothing to estimate"):
        anchored_rating([], prior_elo=None)


def test_every_game_won_is_unbounded_without_the_prior_and_finite_with_it() -> None:
    with pytest.raises(ValueError):
        anchored_rating(two_player(10, 0), prior_elo=None)
    fit = anchored_rating(two_player(10, 0))
    assert 1500.0 < fit.rating < 1500.0 + 3 * PRIOR_ELO and math.isfinite(fit.high)


def log_likelihood(theta: float, tables: list[Table]) -> float:
    """Breslow's Plackett-Luce log-likelihood written out plainly (no prior), for a brute force."""
    total = 0.0
    for table in tables:
        strengths = [
            theta if seat == table.subject else (rating - BASE_RATING) / ELO_PER_UNIT
            for seat, rating in enumerate(table.ratings)
        ]
        remaining = list(range(len(table.ranks)))
        for rank in sorted(set(table.ranks)):
            placed = [seat for seat in remaining if table.ranks[seat] == rank]
            denominator = math.log(sum(math.exp(strengths[seat]) for seat in remaining))
            total += sum(strengths[seat] for seat in placed) - len(placed) * denominator
            remaining = [seat for seat in remaining if seat not in placed]
    return total


def test_multiplayer_tables_with_ties_agree_with_a_brute_force_maximum() -> None:
    tables = [
        Table(ratings=[0, 1450, 1600, 1700], ranks=[2, 1, 3, 4], subject=0),
        Table(ratings=[1650, 0, 1500], ranks=[1, 1, 3], subject=1),  # a tie for first
        Table(ratings=[1550, 1500, 0], ranks=[3, 1, 2], subject=2),
        Table(ratings=[0, 1800], ranks=[1, 2], subject=0),
        Table(ratings=[1400, 0, 1500, 1600, 1450], ranks=[1, 2, 2, 4, 5], subject=1),
    ]
    fit = anchored_rating(tables, prior_elo=None)
    grid = [i / 10_000 for i in range(-30_000, 30_001)]
    best = max(grid, key=lambda theta: log_likelihood(theta, tables))
    assert fit.rating == pytest.approx(BASE_RATING + best * ELO_PER_UNIT, abs=0.05)
    # the curvature, numerically
    h = 1e-4
    theta = (fit.rating - BASE_RATING) / ELO_PER_UNIT
    second = (
        log_likelihood(theta + h, tables) - 2 * log_likelihood(theta, tables) + log_likelihood(theta - h, tables)
    ) / h**2
    assert fit.half_width == pytest.approx(Z / math.sqrt(-second) * ELO_PER_UNIT, rel=1e-3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(2, 5), st.integers(0, 10**6)), min_size=1, max_size=40))
def test_the_estimate_lies_inside_its_interval_and_more_games_narrow_it(games) -> None:  # type: ignore[no-untyped-def]
    import random

    tables = []
    for size, seed in games:
        rng = random.Random(seed)
        tables.append(
            Table(
                ratings=[rng.uniform(1200, 1800) for _ in range(size)],
                ranks=[rng.randint(1, size) for _ in range(size)],
                subject=rng.randrange(size),
            )
        )
    fit = anchored_rating(tables)
    assert fit.low < fit.rating < fit.high
    informative = any(len(set(table.ranks)) > 1 for table in tables)  # a game all tied tells nothing
    more = anchored_rating(tables * 4).half_width
    assert more < fit.half_width if informative else more == pytest.approx(fit.half_width)
