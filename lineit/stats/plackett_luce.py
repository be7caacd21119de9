"""Whole-history ratings: a Plackett-Luce maximum-likelihood fit of every game at once, with 95 %
intervals. Unlike Elo it does not depend on the order of the games.

The model (one strength per player, a game's order drawn place by place, ties by Breslow's rule),
the games as arrays and their likelihood are plackett_luce_model.py's; this module fits.

A weak Gaussian prior on theta (PRIOR_ELO Elo wide, centred on the pool) keeps the fit finite
when a player won every game (the maximum-likelihood estimate is then infinite); give
``prior_elo=None`` for the plain maximum-likelihood fit, which then needs every player to have
both beaten and lost to someone, through some chain.

Ratings only compare within a connected component of the comparison graph (players linked by
sharing tables, directly or not): each component is centred on BASE_RATING by itself, and
``component`` says which one a player is in (0 the largest, by games then players).

Intervals are the fit's own curvature: the observed Fisher information (plus the prior's) is
inverted, and the one direction the likelihood cannot see (adding a constant to everyone) is
projected out, so an interval is the uncertainty of a rating against its component's mean. Up to
DENSE_LIMIT players in a component the whole inverse is taken; beyond, each player's own
curvature only (1 / H_ii: the opponents and the pool's mean taken as known, off by about one
over the number of distinct opponents, a few percent either way; tests check within 10 %). ``bootstrap_intervals`` resamples deal groups
instead (the games of one duplicate deal are correlated); benchmarks/ratings_fit.py compares
their coverage.

Pure functions over plain data. numpy and scipy are imported inside the functions that fit, so
the rest of the kit works without them.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic

from .intervals import Z_95
from .plackett_luce_model import FitError, FloatArray, Games, IntArray, Key, Objective, encode, solve

ELO_PER_UNIT = 400.0 / math.log(10.0)  # Elo points per unit of theta
BASE_RATING = 1500.0
PRIOR_ELO = 500.0  # the prior's standard deviation, in Elo points
DENSE_LIMIT = 3000  # the largest component whose covariance is inverted whole


# --- The fit ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerRating:
    """One player's whole-history rating on the Elo scale and its 95 % interval [low, high]."""

    rating: float
    low: float
    high: float
    games: int
    component: int  # 0: the largest connected component


@dataclass(frozen=True)
class ComponentFit:
    """The fit as arrays (index = player index): what bootstrap_intervals starts from."""

    theta: FloatArray
    components: IntArray  # per player, 0 the largest
    games: IntArray  # per player
    precision: float
    iterations: int
    interval: str  # "curvature" or "curvature-diagonal" (the main component's)


@dataclass(frozen=True)
class Fit(Generic[Key]):
    ratings: dict[Key, PlayerRating]
    components: int
    iterations: int
    interval: str


def _components(games: Games) -> tuple[IntArray, IntArray]:
    """Each player's connected component, numbered by size (games, then players, largest first),
    and each player's number of games."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    count = games.count
    rows = [block.players[:, :-1].ravel() for block in games.blocks]
    cols = [block.players[:, 1:].ravel() for block in games.blocks]
    played = sum(
        (np.bincount(block.players.ravel(), minlength=count) for block in games.blocks), np.zeros(count, np.int64)
    )
    row = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    col = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    graph = coo_matrix((np.ones(len(row)), (row, col)), shape=(count, count))
    number, labels = connected_components(graph, directed=False)
    firsts = [labels[block.players[:, 0]] for block in games.blocks]
    sizes = np.bincount(np.concatenate(firsts) if firsts else np.zeros(0, np.int64), minlength=number)
    members = np.bincount(labels, minlength=number)
    order = np.lexsort((np.arange(number), -members, -sizes))  # largest first, then by label
    renumber = np.empty(number, dtype=np.int64)
    renumber[order] = np.arange(number)
    return renumber[labels], played


def fit_arrays(games: Games, *, prior_elo: float | None = PRIOR_ELO) -> tuple[ComponentFit, FloatArray, FloatArray]:
    """Fit ``games``: the fit, each player's centred rating (Elo scale, each component's mean at
    BASE_RATING) and the standard deviation of that rating (Elo points)."""
    import numpy as np

    if prior_elo is not None and not prior_elo > 0:
        raise FitError(f"the prior's width must be positive, not {prior_elo!r}")
    precision = 0.0 if prior_elo is None else (ELO_PER_UNIT / prior_elo) ** 2
    components, played = _components(games)
    if prior_elo is None and not _finite_without_prior(games, components):
        raise FitError("no finite maximum-likelihood fit (a player won or lost every game): give a prior")
    objective = Objective(games, precision)
    theta, iterations = solve(objective, np.zeros(games.count))
    ratings = np.empty(games.count)
    deviations = np.empty(games.count)
    interval = "curvature"
    for component in range(int(components.max()) + 1 if games.count else 0):
        members = np.flatnonzero(components == component)
        centred = theta[members] - theta[members].mean()
        ratings[members] = BASE_RATING + ELO_PER_UNIT * centred
        deviations[members] = ELO_PER_UNIT * np.sqrt(_centred_variances(objective, theta, members))
        if component == 0 and len(members) > DENSE_LIMIT:
            interval = "curvature-diagonal"
    fit = ComponentFit(theta, components, played, precision, iterations, interval)
    return fit, ratings, deviations


def _finite_without_prior(games: Games, components: IntArray) -> bool:
    """Whether the plain maximum-likelihood fit is finite (Hunter 2004): within each component,
    everyone reaches everyone by "finished ahead of or tied with" links (a tie links both ways)."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    rows, cols = [], []
    for block in games.blocks:
        ahead, behind = block.players[:, :-1], block.players[:, 1:]
        tied = block.ends[:, :-1] > np.arange(block.players.shape[1] - 1)  # the next one shares the place
        rows += [ahead.ravel(), behind[tied]]
        cols += [behind.ravel(), ahead[tied]]
    row, col = np.concatenate(rows), np.concatenate(cols)
    graph = coo_matrix((np.ones(len(row)), (row, col)), shape=(games.count, games.count))
    strong, _ = connected_components(graph, directed=True, connection="strong")
    return bool(strong == int(components.max()) + 1)


def _centred_variances(objective: Objective, theta: FloatArray, members: IntArray) -> FloatArray:
    """Var(theta_i - the component's mean): the inverse curvature with the shift direction
    projected out (P H^-1 P, P = I - 11'/m; 11'/m added first so H is invertible without a
    prior: 1 is an eigenvector of H, so that changes nothing else)."""
    import numpy as np

    size = len(members)
    if size > DENSE_LIMIT:
        return 1.0 / objective.hessian(theta, members, dense=False)
    matrix = objective.hessian(theta, members, dense=True) + 1.0 / size
    covariance = np.linalg.inv(matrix)
    # diag(P C P) = diag(C) - 2 * row means + the grand mean.
    return np.maximum(np.diag(covariance) - 2 * covariance.mean(axis=1) + covariance.mean(), 0.0)


def plackett_luce(
    games: Iterable[tuple[Sequence[Key], Sequence[int]]],
    *,
    groups: Iterable[Hashable] | None = None,
    prior_elo: float | None = PRIOR_ELO,
) -> Fit[Key]:
    """The whole-history fit of ``games`` (players per seat, ranks per seat; 1 is first, equal
    ranks tie), each player's rating with its 95 % interval (the fit's curvature)."""
    keys, arrays = encode(games, groups)
    return plackett_luce_arrays(keys, arrays, prior_elo=prior_elo)


def plackett_luce_arrays(keys: Sequence[Key], games: Games, *, prior_elo: float | None = PRIOR_ELO) -> Fit[Key]:
    """plackett_luce over games already as arrays (block_from_arrays), player i being ``keys[i]``:
    what a caller with millions of games builds without a Python object per game."""
    if not keys:
        return Fit({}, 0, 0, "curvature")
    fit, ratings, deviations = fit_arrays(games, prior_elo=prior_elo)
    result = {
        key: PlayerRating(
            rating=float(ratings[i]),
            low=float(ratings[i] - Z_95 * deviations[i]),
            high=float(ratings[i] + Z_95 * deviations[i]),
            games=int(fit.games[i]),
            component=int(fit.components[i]),
        )
        for i, key in enumerate(keys)
    }
    return Fit(result, int(fit.components.max()) + 1, fit.iterations, fit.interval)


def bootstrap_intervals(
    games: Games, fit: ComponentFit, *, replicates: int = 200, seed: int = 0, level: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Percentile intervals of each player's centred rating from refits on deal groups drawn
    with replacement (each replicate weighs a game by how often its group was drawn)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    group_ids = np.unique(np.concatenate([block.groups for block in games.blocks]))
    positions = [np.searchsorted(group_ids, block.groups) for block in games.blocks]
    samples = np.empty((replicates, games.count))
    for replicate in range(replicates):
        counts = rng.multinomial(len(group_ids), np.full(len(group_ids), 1.0 / len(group_ids))).astype(float)
        objective = Objective(games, fit.precision, [counts[p] for p in positions])
        theta, _ = solve(objective, fit.theta)
        for component in range(int(fit.components.max()) + 1):
            members = fit.components == component
            theta[members] -= theta[members].mean()
        samples[replicate] = BASE_RATING + ELO_PER_UNIT * theta
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
    return low, high


def rank_ranges(intervals: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """For each (low, high) interval, the best and worst rank it allows among all of them: 1 plus
    those wholly above it, and those not wholly below it (itself included). Two players whose
    intervals overlap share part of their ranges."""
    lows = sorted(low for low, _ in intervals)
    highs = sorted(high for _, high in intervals)
    from bisect import bisect_left, bisect_right

    count = len(intervals)
    return [(1 + count - bisect_right(lows, high), count - bisect_left(highs, low)) for low, high in intervals]
