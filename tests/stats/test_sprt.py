"""The sequential test behind ``lineit sprt``: its statistics, against numbers worked by hand."""

from __future__ import annotations

import math
import random

import pytest

from lineit.stats.elo import expected_score as elo_expected_score
from lineit.stats.sprt import CONTINUE, H0, H1, Bounds, Sprt, elo_of


def expected_score(elo: float) -> float:
    return elo_expected_score(elo, 0.0)  # of a bot elo points stronger


def test_elo_and_expected_score_are_inverse() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    for elo in (-300.0, -10.0, 0.0, 35.5, 250.0):
        assert elo_of(expected_score(elo)) == pytest.approx(elo)
    assert (elo_of(0.0), elo_of(1.0)) == (-math.inf, math.inf)


def test_the_bounds_are_walds() -> None:
    bounds = Bounds()
    assert (bounds.lower, bounds.upper) == (pytest.approx(-2.944439), pytest.approx(2.944439))
    assert Bounds(alpha=0.01, beta=0.1).upper == pytest.approx(math.log(0.9 / 0.01))


def test_the_log_likelihood_ratio_worked_by_hand() -> None:
    """Ten pairs: two lost, four halved, four won. Mean 0.6; the variance with half a pair of
    prior on each value is 1.7375 / 12.5 = 0.139; s0 = 0.5, s1 = 0.5143871."""
    test = Sprt()
    for points in [0] * 2 + [1] * 4 + [2] * 4:
        test.add_pair(points)
    s1 = 1 / (1 + 10 ** (-10 / 400))
    assert test.score() == pytest.approx(0.6)
    assert test.llr() == pytest.approx(10 * (s1 - 0.5) * (1.2 - 0.5 - s1) / (2 * 0.139))
    assert test.status() == CONTINUE


def test_a_handful_of_lopsided_pairs_does_not_decide_and_many_do() -> None:
    test = Sprt()
    test.add_pair(2)
    assert test.status() == CONTINUE  # one pair of wins is no evidence of +10 Elo
    for _ in range(40):
        test.add_pair(2)
    assert test.status() == H1
    losing = Sprt()
    for _ in range(41):
        losing.add_pair(0)
    assert losing.status() == H0


def test_mirrored_outcomes_and_mirrored_hypotheses_give_the_opposite_ratio() -> None:
    rng = random.Random(5)
    outcomes = [rng.choice([0, 0.5, 1, 1, 1.5, 2]) for _ in range(300)]
    up, down = Sprt(Bounds(-5, 15)), Sprt(Bounds(-15, 5))
    for points in outcomes:
        up.add_pair(points)
        down.add_pair(2 - points)
    assert up.llr() == pytest.approx(-down.llr())
    elo, low, high = up.elo()
    mirrored = down.elo()
    assert (elo, low, high) == (pytest.approx(-mirrored[0]), pytest.approx(-mirrored[2]), pytest.approx(-mirrored[1]))


def test_a_better_bot_is_found_better_and_an_equal_one_not() -> None:
    """Simulated pairs: +60 Elo is accepted as H1, an equal bot ends in H0, each well inside the
    error rates over a few runs (seeded, so the test is repeatable)."""
    for seed in range(5):
        rng = random.Random(seed)
        for elo, expected in ((60.0, H1), (0.0, H0)):
            win = expected_score(elo)
            test = Sprt()
            while test.status() == CONTINUE:
                test.add_pair(sum(rng.random() < win for _ in range(2)))
            assert test.status() == expected, (seed, elo, test.pairs)


@pytest.mark.parametrize("points", [-1, 0.3, 2.5, 3])
def test_a_pair_is_worth_zero_to_two_points_in_halves(points: float) -> None:
    with pytest.raises(ValueError, match="0 to 2 points"):
        Sprt().add_pair(points)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((10, 5), "elo0 must be below elo1"),
        ((0, 10, 0.5), "alpha"),
        ((0, 10, 0.05, 0), "beta"),
        ((math.nan, 1), "elo0"),
        ((-200000, 0), "from -2000 to 2000"),
    ],
)
def test_bad_bounds_are_refused(arguments: tuple[float, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Bounds(*arguments)
