"""A sequential probability ratio test: "is the new version better than the old one?" in as few
games as the evidence allows (fishtest's method, for two-player Line-it).

The games come in pairs: one deal played twice, the bots swapping seats, so the luck of the deal
cancels out. A pair is one observation: the new bot's score over its two games (a win 1, a shared
win 1/2, a loss 0; a forfeited game is a loss), halved. Its five possible values (0, 1/4, 1/2,
3/4, 1) are counted, as fishtest's pentanomial model counts game pairs.

The hypotheses are Elo differences of the new bot over the old: H0 ``elo0`` (by default 0: not
better) against H1 ``elo1`` (by default 10). The log-likelihood ratio is the generalised SPRT's
normal approximation over the pairs' mean score m and variance v (M. Van den Bergh, "Comments on
normalized Elo"; fishtest's ``LLR_logistic``):

    LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v),     s = 1 / (1 + 10 ** (-elo / 400))

The test stops when LLR leaves [ln(beta / (1 - alpha)), ln((1 - beta) / alpha)], about
[-2.94, 2.94] for alpha = beta = 0.05: past the top, H1 is accepted (the new bot is better by
about elo1 or more, with a false-positive rate alpha); past the bottom, H0 (it is not better by
more than about elo0, false-negative rate beta).

The approximation needs a variance, and a few identical pairs have none: the variance is taken
with half a pair of prior weight on each of the five values (the mean is the pairs' own), so
that a handful of lopsided pairs cannot decide the test alone. With hundreds of pairs, as
fishtest runs, the prior is negligible.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

from .elo import expected_score

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
PRIOR_PAIRS = 0.5  # per value, in the variance only
Z95 = 1.959964
MOST_ELO = 2000.0  # a bound beyond this is a score of 0.99999 or more: no test can tell it apart

H1 = "H1"  # the new version is better (by about elo1 or more)
H0 = "H0"  # it is not (better by about elo0 at most)
CONTINUE = "continue"
MOST_GAMES = 1_000_000  # the largest game cap a test may have (lineit sprt --max-games, the platform's)


def batch_seed(seed: int, batch: int) -> int:
    """The match seed of a test's batch ``batch`` (0, 1, ...): batches of different seeds share no
    deal. `lineit sprt --seed S` and the platform's SPRT of a new version (its seed S) play the
    same deals in the same batches."""
    digest = hashlib.blake2b(f"lineit-sprt/{seed}/{batch}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1  # below 2**63


def elo_of(score: float) -> float:
    """The Elo difference that gives this score per game (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class Bounds:
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (abs(self.elo0) <= MOST_ELO and abs(self.elo1) <= MOST_ELO):  # also refuses NaN
            raise ValueError(
                f"elo0 and elo1 must be from {-MOST_ELO:g} to {MOST_ELO:g} (got {self.elo0} and {self.elo1})"
            )
        if self.elo0 >= self.elo1:
            raise ValueError(f"elo0 must be below elo1 (got {self.elo0} and {self.elo1})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5 (got {value})")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass
class Sprt:
    """The test's state: pair counts by score, and what they say."""

    bounds: Bounds = field(default_factory=Bounds)
    counts: list[int] = field(default_factory=lambda: [0] * len(PAIR_SCORES))

    def add_pair(self, new_points: float) -> None:
        """Record one deal pair: the new bot's points over its two games (0 to 2, in halves)."""
        index = round(new_points * 2)
        if not 0 <= index < len(PAIR_SCORES) or not math.isclose(index / 2, new_points):
            raise ValueError(f"a pair is worth 0 to 2 points in halves, not {new_points!r}")
        self.counts[index] += 1

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def _moments(self) -> tuple[float, float]:
        """The pairs' mean score, and the variance of a pair's score around it with the prior."""
        pairs = self.pairs
        mean = sum(count * score for count, score in zip(self.counts, PAIR_SCORES, strict=True)) / pairs
        weights = [count + PRIOR_PAIRS for count in self.counts]
        spread = sum(w * (score - mean) ** 2 for w, score in zip(weights, PAIR_SCORES, strict=True))
        return mean, spread / sum(weights)

    def score(self) -> float:
        """The new bot's mean score per game (0.5 before any pair)."""
        return self._moments()[0] if self.pairs else 0.5

    def llr(self) -> float:
        if not self.pairs:
            return 0.0
        mean, variance = self._moments()
        s0, s1 = expected_score(self.bounds.elo0, 0.0), expected_score(self.bounds.elo1, 0.0)
        return self.pairs * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)

    def status(self) -> str:
        llr = self.llr()
        if llr >= self.bounds.upper:
            return H1
        if llr <= self.bounds.lower:
            return H0
        return CONTINUE

    def elo(self) -> tuple[float, float, float]:
        """The new bot's Elo difference over the old and its 95% interval (low, high)."""
        if not self.pairs:
            return 0.0, -math.inf, math.inf
        mean, variance = self._moments()
        spread = Z95 * math.sqrt(variance / self.pairs)
        return elo_of(mean), elo_of(mean - spread), elo_of(mean + spread)
