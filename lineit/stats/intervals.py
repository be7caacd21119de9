"""Confidence intervals: Student's t for means over a few groups, Wilson for proportions."""

from __future__ import annotations

import math

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
