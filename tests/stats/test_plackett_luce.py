"""The whole-history Plackett-Luce fit against values known another way: by hand, by choix, by a
brute-force maximisation of the likelihood written here, and by planted strengths. No database."""

from __future__ import annotations

import itertools
import math
import random

import choix
import numpy as np
import pytest
from scipy.optimize import minimize

from lineit.stats import plackett_luce as pl
from lineit.stats.intervals import Z_95
from lineit.stats.plackett_luce import ELO_PER_UNIT, plackett_luce, rank_ranges
from lineit.stats.plackett_luce_model import FitError, encode


def two_player_games(wins: int, losses: int) -> list[tuple[tuple[str, str], tuple[int, int]]]:
    return [(("a", "b"), (1, 2))] * wins + [(("a", "b"), (2, 1))] * losses


def test_two_players_w_wins_of_n_is_the_log_odds_on_the_elo_scale() -> None:
    fit = plackett_luce(two_player_games(7, 3), prior_elo=None)

    a, b = fit.ratings["a"], fit.ratings["b"]
    assert a.rating - b.rating == pytest.approx(ELO_PER_UNIT * math.log(7 / 3), abs=1e-3)
    assert (a.rating + b.rating) / 2 == pytest.approx(1500.0)
    # The difference has variance 1 / (n p q); each rating, against the pair's mean, half of it.
    difference_sd = ELO_PER_UNIT / math.sqrt(10 * 0.7 * 0.3)
    assert (a.high - a.low) / 2 == pytest.approx(Z_95 * difference_sd / 2, rel=1e-3)
    assert a.games == b.games == 10 and a.component == b.component == 0


def test_the_prior_only_shrinks_towards_the_pool() -> None:
    plain = plackett_luce(two_player_games(70, 30), prior_elo=None)
    shrunk = plackett_luce(two_player_games(70, 30))

    plain_gap = plain.ratings["a"].rating - plain.ratings["b"].rating
    shrunk_gap = shrunk.ratings["a"].rating - shrunk.ratings["b"].rating
    assert 0.97 * plain_gap < shrunk_gap < plain_gap


def test_untied_rankings_of_every_size_match_choix() -> None:
    rng = random.Random(3)
    strengths = [0.0, 0.4, -0.3, 1.0, -0.8, 0.2]
    rankings = []
    for _ in range(600):
        table = rng.sample(range(6), rng.randint(2, 5))
        rankings.append(sorted(table, key=lambda p: -(strengths[p] + _gumbel(rng))))
    reference = choix.opt_rankings(6, rankings)
    games = [(tuple(ranking), tuple(range(1, len(ranking) + 1))) for ranking in rankings]

    fit = plackett_luce(games, prior_elo=None)

    expected = ELO_PER_UNIT * (reference - reference.mean()) + 1500
    assert [fit.ratings[p].rating for p in range(6)] == pytest.approx(list(expected), abs=0.05)


def _gumbel(rng: random.Random) -> float:
    return -math.log(-math.log(rng.random()))


def brute_force_log_likelihood(theta: np.ndarray, games: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> float:
    """Plackett-Luce with Breslow's ties, place by place, straight from its definition."""
    total = 0.0
    for players, ranks in games:
        for rank in sorted(set(ranks)):
            placed = [p for p, r in zip(players, ranks, strict=True) if r == rank]
            remaining = [p for p, r in zip(players, ranks, strict=True) if r >= rank]
            denominator = sum(math.exp(theta[p]) for p in remaining)
            total += sum(theta[p] - math.log(denominator) for p in placed)
    return total


def tied_games() -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    rng = random.Random(5)
    games = []
    for _ in range(300):
        table = tuple(rng.sample(range(3), rng.choice((2, 3))))
        ranks = tuple(rng.choice((1, 1, 2, 3)) for _ in table)
        games.append((table, ranks))
    return games


def test_ties_match_a_brute_force_maximisation_of_the_likelihood_and_its_curvature() -> None:
    games = tied_games()

    def negative(free: np.ndarray) -> float:
        return -brute_force_log_likelihood(np.array([0.0, *free]), games)

    best = minimize(negative, np.zeros(2), method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-12})
    theta = np.array([0.0, *best.x])
    fit = plackett_luce(games, prior_elo=None)

    expected = ELO_PER_UNIT * (theta - theta.mean()) + 1500
    assert [fit.ratings[p].rating for p in range(3)] == pytest.approx(list(expected), abs=0.05)
    # The curvature by finite differences, in the centred coordinates: Var(theta_i - mean).
    step, size = 1e-4, 3
    hessian = np.zeros((size, size))
    for i, j in itertools.product(range(size), repeat=2):
        shifts = [
            np.eye(size)[i] * step * si + np.eye(size)[j] * step * sj for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1))
        ]
        values = [-brute_force_log_likelihood(theta + shift, games) for shift in shifts]
        hessian[i, j] = (values[0] - values[1] - values[2] + values[3]) / (4 * step * step)
    projection = np.eye(size) - 1 / size
    covariance = projection @ np.linalg.pinv(hessian) @ projection
    for p in range(3):
        half_width = (fit.ratings[p].high - fit.ratings[p].low) / 2
        assert half_width == pytest.approx(Z_95 * ELO_PER_UNIT * math.sqrt(covariance[p, p]), rel=1e-3)


def planted_games(seed: int, players: int = 30, games: int = 3000) -> tuple[np.ndarray, list]:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, players)
    result = []
    for _ in range(games):
        table = rng.choice(players, size=int(rng.integers(2, 6)), replace=False)
        utility = theta[table] + rng.gumbel(size=len(table))
        ranks = np.argsort(np.argsort(-utility)) + 1
        result.append((tuple(int(p) for p in table), tuple(int(r) for r in ranks)))
    return theta, result


def test_planted_strengths_are_recovered_within_their_intervals() -> None:
    theta, games = planted_games(seed=11)

    fit = plackett_luce(games)

    truth = ELO_PER_UNIT * (theta - theta.mean()) + 1500
    inside = [fit.ratings[p].low <= truth[p] <= fit.ratings[p].high for p in range(len(theta))]
    assert sum(inside) >= 26  # 95% of 30 is 28.5; far fewer would mean intervals too narrow
    widths = [fit.ratings[p].high - fit.ratings[p].low for p in range(len(theta))]
    assert max(widths) < 120  # and not uselessly wide: about 600 games each


def test_players_that_never_met_are_separate_components_each_centred() -> None:
    games = two_player_games(6, 4) + [(("c", "d", "e"), (1, 2, 3)), (("c", "d", "e"), (3, 2, 1))] * 6

    fit = plackett_luce(games)

    assert fit.components == 2
    assert {fit.ratings[p].component for p in "cde"} == {0}  # more games: the largest
    assert {fit.ratings[p].component for p in "ab"} == {1}
    assert sum(fit.ratings[p].rating for p in "cde") / 3 == pytest.approx(1500)
    assert sum(fit.ratings[p].rating for p in "ab") / 2 == pytest.approx(1500)


def test_a_player_with_only_wins_gets_a_finite_rating_with_the_prior_and_an_error_without() -> None:
    games = two_player_games(5, 5) + [(("c", "a"), (1, 2)), (("c", "b"), (1, 2))] * 4

    fit = plackett_luce(games)

    c = fit.ratings["c"]
    assert c.rating > max(fit.ratings["a"].high, fit.ratings["b"].high)
    assert math.isfinite(c.high) and c.high - c.low < 2000
    with pytest.raises(FitError, match="give a prior"):
        plackett_luce(games, prior_elo=None)


@pytest.mark.parametrize(
    "games",
    [
        [(("a", "a"), (1, 2))],
        [(("a", "b", "c", "d", "e", "f"), (1, 2, 3, 4, 5, 6))],
        [(("a",), (1,))],
        [(("a", "b"), (1,))],
    ],
)
def test_bad_games_are_refused_with_a_clear_error(games: list) -> None:
    with pytest.raises(FitError):
        plackett_luce(games)


def test_the_diagonal_curvature_is_close_to_the_whole_inverse(monkeypatch: pytest.MonkeyPatch) -> None:
    _, games = planted_games(seed=2, players=40, games=4000)
    whole = plackett_luce(games)
    monkeypatch.setattr(pl, "DENSE_LIMIT", 10)

    diagonal = plackett_luce(games)

    assert diagonal.interval == "curvature-diagonal" and whole.interval == "curvature"
    for p in range(40):
        narrow = diagonal.ratings[p].high - diagonal.ratings[p].low
        wide = whole.ratings[p].high - whole.ratings[p].low
        assert 0.9 * wide < narrow < 1.1 * wide


def test_the_deal_group_bootstrap_agrees_with_the_curvature_on_independent_games() -> None:
    _, games = planted_games(seed=4, players=8, games=800)
    _keys, arrays = encode(games)
    fit, ratings, deviations = pl.fit_arrays(arrays)

    low, high = pl.bootstrap_intervals(arrays, fit, replicates=150, seed=1)

    ratio = (high - low) / (2 * Z_95 * deviations)
    assert 0.75 < ratio.mean() < 1.25
    assert ((low < ratings) & (ratings < high)).all()


def test_rank_ranges_count_the_intervals_wholly_above_and_not_wholly_below() -> None:
    intervals = [(1600, 1700), (1550, 1650), (1400, 1500), (1300, 1450), (1000, 1100)]

    assert rank_ranges(intervals) == [(1, 2), (1, 2), (3, 4), (3, 4), (5, 5)]
