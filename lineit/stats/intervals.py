"""Confidence intervals (95 %): Student's t for means, Wilson's score interval for proportions.

A match's games come in deal groups: with duplicate deals every deck is played once per seat
rotation, and the games of one deck are correlated (they share the cards). So a mean is taken
over the groups (each group's mean is one observation: ``mean_interval`` over them), and a
win rate's Wilson interval counts the games it is worth as independent ones (``grouped_rate``):
the Kish effective sample size, never fewer than the groups, never more than the games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Z_95 = 1.959963984540054  # the normal distribution's 97.5 % quantile

# Two-sided 95 % (that is, 97.5 %) quantiles of Student's t, by degrees of freedom.
_T975 = (12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
         2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
         2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272)  # fmt: skip


def t_quantile(degrees: int) -> float:
    """Student's t 97.5 % quantile: the table to 30 degrees, then the Cornish-Fisher expansion
    around the normal quantile (Abramowitz and Stegun 26.7.5; under 1e-6 off beyond 30)."""
    if degrees < 1:
        raise ValueError(f"Student's t needs at least one degree of freedom, not {degrees}")
    if degrees <= len(_T975):
        return _T975[degrees - 1]
    z, v = Z_95, float(degrees)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4)
    )


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95 % t interval: t(n-1) * sd / sqrt(n).

    The half-width is inf when the values cannot estimate their spread: fewer than two, or all
    equal (a sample with no spread says nothing about it; it is not an interval of zero)."""
    count = len(values)
    mean = sum(values) / count if count else 0.0
    if count < 2:
        return mean, math.inf
    variance = sum((value - mean) ** 2 for value in values) / (count - 1)
    if variance <= 0.0:
        return mean, math.inf
    return mean, t_quantile(count - 1) * math.sqrt(variance / count)


def wilson_interval(successes: float, trials: float, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default); (0, 1) without trials.

    Fractional successes (a shared win among k counts 1/k) and trials (an effective sample
    size) are allowed: the interval uses p = successes / trials. It always holds p and stays
    inside [0, 1]."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes!r} successes out of {trials!r} trials")
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    margin = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    # Mathematically low <= p <= high; rounding must not push p (0 or 1 above all) outside.
    return (min(p, max(0.0, centre - margin)), max(p, min(1.0, centre + margin)))


def effective_games(groups: Sequence[Sequence[float]]) -> float:
    """How many independent games the win shares of these deal groups are worth (Kish's
    effective sample size: the games over the design effect).

    p(1-p) / Var(rate), with Var(rate) estimated from the groups' means (s^2 / groups), held
    between the number of groups (always safe: a group's share lies in [0, 1], so its variance
    is at most p(1-p)) and the number of games (a design effect under 1 is not believed, as Korn
    and Graubard do). Where the groups cannot estimate it (one group, every game won or every one
    lost, every group the same share) the design effect is 1: the number of games."""
    means = [sum(group) / len(group) for group in groups if group]
    count = len(means)
    games = float(sum(len(group) for group in groups))
    if count < 2:
        return games
    rate = sum(means) / count
    variance = sum((mean - rate) ** 2 for mean in means) / (count - 1)
    binomial = rate * (1 - rate)
    if binomial <= 0.0 or variance <= 0.0:
        return games
    return min(games, max(float(count), binomial * count / variance))


def grouped_rate(groups: Sequence[Sequence[float]], z: float = Z_95) -> tuple[float, float, float]:
    """A win rate over games in deal groups and its Wilson interval: (rate, low, high).

    Each value is one game's win share in [0, 1] (a shared win among k counts 1/k); the rate is
    the mean of the groups' means (each deal weighs the same) and the interval is Wilson's for
    that rate over ``effective_games``. Games with a new deck each are groups of one: the plain
    Wilson interval over the games. No game: (0, 0, 1)."""
    means = [sum(group) / len(group) for group in groups if group]
    if not means:
        return (0.0, 0.0, 1.0)
    rate = min(1.0, max(0.0, sum(means) / len(means)))
    n = effective_games(groups)
    low, high = wilson_interval(rate * n, n, z)
    return (rate, low, high)
