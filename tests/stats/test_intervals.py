"""The intervals of the results table, against references computed here another way. No database."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lineit.stats.intervals import (
    Z_95,
    effective_games,
    grouped_rate,
    mean_interval,
    t_quantile,
    wilson_interval,
)


def wilson_by_quadratic(successes: float, trials: float) -> tuple[float, float]:
    """Wilson's interval from its definition: the p where the score test is at its 95% bound,
    (p_hat - p)^2 = z^2 p (1 - p) / n, a quadratic in p solved for both roots."""
    p_hat, z2 = successes / trials, Z_95**2
    a = 1 + z2 / trials
    b = -(2 * p_hat + z2 / trials)
    c = p_hat**2
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


@pytest.mark.parametrize(
    ("successes", "trials", "published"),
    # The four figures rounded as in tables of the Wilson interval (z = 1.96).
    [(0, 4, (0.0, 0.4899)), (4, 4, (0.5101, 1.0)), (1, 4, (0.0456, 0.6994)), (19, 20, (0.7639, 0.9911))],
)
def test_wilson_gives_the_known_values(successes, trials, published):
    low, high = wilson_interval(successes, trials)
    reference = wilson_by_quadratic(successes, trials)
    assert (low, high) == (pytest.approx(reference[0], abs=1e-12), pytest.approx(reference[1], abs=1e-12))
    assert (round(low, 4), round(high, 4)) == published


def test_wilson_counts_half_wins_and_needs_a_possible_count():
    assert wilson_interval(1.5, 4) == pytest.approx(wilson_by_quadratic(1.5, 4))
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for bad in [(5, 4), (-1, 4)]:
        with pytest.raises(ValueError):
            wilson_interval(*bad)


@given(
    trials=st.one_of(st.integers(1, 10**6), st.floats(0.01, 1e6)),
    fraction=st.floats(0.0, 1.0),
)
def test_wilson_always_holds_the_estimate_inside_zero_one(trials, fraction):
    successes = min(float(trials), fraction * trials)
    low, high = wilson_interval(successes, trials)
    assert 0.0 <= low <= successes / trials <= high <= 1.0
    assert low < high  # never a point, whatever the sample


def t_cdf(x: float, degrees: int) -> float:
    """Student's t distribution function by Simpson's rule on its density."""
    v = degrees
    density_at_0 = math.exp(math.lgamma((v + 1) / 2) - math.lgamma(v / 2)) / math.sqrt(v * math.pi)
    steps = 4000
    h = x / steps
    total = 0.0
    for i in range(steps + 1):
        weight = 1 if i in (0, steps) else (4 if i % 2 else 2)
        total += weight * (1 + (i * h) ** 2 / v) ** (-(v + 1) / 2)
    return 0.5 + density_at_0 * total * h / 3


@pytest.mark.parametrize("degrees", [1, 2, 3, 5, 11, 13, 29, 30, 31, 45, 120, 1000])
def test_t_quantile_is_students(degrees):
    quantile = t_quantile(degrees)
    assert t_cdf(quantile, degrees) == pytest.approx(0.975, abs=2e-6)


def test_t_quantile_needs_a_degree_of_freedom():
    with pytest.raises(ValueError):
        t_quantile(0)


def test_mean_interval_is_t_over_the_standard_error_and_never_zero():
    values = [3.0, 7.0, 5.0, 9.0]
    mean, half = mean_interval(values)
    sd = math.sqrt(sum((v - 6.0) ** 2 for v in values) / 3)
    assert mean == 6.0 and half == pytest.approx(3.182446 * sd / 2)
    assert mean_interval([4.0])[1] == math.inf  # one value: no spread to measure
    assert mean_interval([4.0, 4.0, 4.0])[1] == math.inf  # no spread: not "± 0"


def test_games_of_a_new_deck_each_get_the_plain_wilson_interval():
    # Groups of one game: 1 win, 0.5 (a shared win of two) and two losses out of 4.
    rate, low, high = grouped_rate([[1.0], [0.5], [0.0], [0.0]])
    assert rate == 0.375
    assert (low, high) == pytest.approx(wilson_by_quadratic(1.5, 4))


def test_deal_groups_count_as_the_independent_games_they_are_worth():
    # 2 players, duplicate deals: a deck won in both seats, then three decks split.
    groups = [[1.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
    rate = 0.625
    means = [1.0, 0.5, 0.5, 0.5]
    s2 = sum((m - rate) ** 2 for m in means) / 3
    expected = rate * (1 - rate) * 4 / s2  # Kish: p(1-p) / (s^2 / groups) = 15 here, held to 8
    assert effective_games(groups) == min(8, max(4, expected)) == 8
    # Decks won in both seats or lost in both: the games are the decks, 4 of them.
    assert effective_games([[1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]) == 4
    # Between the two: 3 decks won twice, 3 lost twice, 2 split.
    groups = [[1.0, 1.0]] * 3 + [[0.0, 0.0]] * 3 + [[1.0, 0.0]] * 2
    means = [1.0] * 3 + [0.0] * 3 + [0.5] * 2
    s2 = sum((m - 0.5) ** 2 for m in means) / 7
    assert effective_games(groups) == pytest.approx(0.25 * 8 / s2)
    rate, low, high = grouped_rate(groups)
    assert rate == 0.5
    assert (low, high) == pytest.approx(wilson_by_quadratic(0.5 * 0.25 * 8 / s2, 0.25 * 8 / s2))
    # What the groups cannot estimate has a design effect of 1: the games themselves.
    assert effective_games([[1.0, 1.0], [1.0, 1.0]]) == 4  # every game won
    assert effective_games([[1.0, 0.0]]) == 2  # one deck


def test_the_small_samples_of_the_issue_give_possible_intervals():
    # 4 games, 2 decks: the table printed "25.0% ± 317.6%", "100.0% ± 0.0%".
    for groups in ([[0.5, 0.0], [0.0, 0.5]], [[0.5, 0.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]], [[0.0, 0.0]]):
        rate, low, high = grouped_rate(groups)
        assert 0.0 <= low <= rate <= high <= 1.0
        assert high - low > 0.3  # a handful of games says little, and the interval says so
    rate, low, high = grouped_rate([[1.0], [1.0], [1.0], [1.0]])
    assert (rate, round(low, 4), high) == (1.0, 0.5101, 1.0)


def test_no_game_gives_the_whole_range():
    assert grouped_rate([]) == (0.0, 0.0, 1.0)


shares = st.sampled_from([0.0, 1 / 5, 1 / 4, 1 / 3, 1 / 2, 1.0])


@given(st.lists(st.lists(shares, min_size=1, max_size=5), min_size=1, max_size=60))
def test_a_grouped_rate_always_holds_its_estimate_inside_zero_one(groups):
    rate, low, high = grouped_rate(groups)
    assert 0.0 <= low <= rate <= high <= 1.0
    assert low < high
    games = sum(len(group) for group in groups)
    assert len(groups) <= effective_games(groups) <= games
