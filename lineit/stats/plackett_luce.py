"""Whole-history ratings: a Plackett-Luce maximum-likelihood fit of every game at once, with 95 %
intervals. Unlike Elo it does not depend on the order of the games.

The model: player i has a strength theta_i; a game's finishing order is drawn place by place,
each place going to one of the players not yet placed with probability exp(theta_i) over the sum
of theirs. With two players it is Bradley-Terry, which is Elo's model: on the Elo scale
(400 / ln 10 per unit of theta) P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)). One game of N
players is one observation, not N(N-1)/2 pairs counted as independent (the pairs of one table
share their players' luck; counting them as independent would narrow the intervals).

Ties (shared ranks) follow Breslow's rule, as the Cox model does for tied times: the players
sharing a place are each chosen from everyone not yet placed, themselves included. A tie for
first of two thus counts as each of them half-beating the other, like Elo's half point.

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
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .intervals import Z_95

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]
    IntArray = NDArray[np.int64]
else:
    FloatArray = IntArray = Any

ELO_PER_UNIT = 400.0 / math.log(10.0)  # Elo points per unit of theta
BASE_RATING = 1500.0
PRIOR_ELO = 500.0  # the prior's standard deviation, in Elo points
DENSE_LIMIT = 3000  # the largest component whose covariance is inverted whole
MIN_PLAYERS, MAX_PLAYERS = 2, 5

Key = TypeVar("Key", bound=Hashable)


class FitError(ValueError):
    """The games cannot be fitted as given (bad shape, a player twice at a table, no finite fit)."""


@dataclass(frozen=True)
class Block:
    """The games of one table size n, in finishing order (best first). ``players`` (G, n): player
    indices; ``starts``/``ends`` (G, n): the first and last position tied with each position;
    ``groups`` (G,): each game's deal group."""

    players: IntArray
    starts: IntArray
    ends: IntArray
    groups: IntArray


@dataclass(frozen=True)
class Games:
    """Games as arrays over ``count`` players, one Block per table size."""

    count: int
    blocks: tuple[Block, ...]

    @property
    def games(self) -> int:
        return sum(len(block.groups) for block in self.blocks)


def block_from_arrays(players: IntArray, ranks: IntArray, groups: IntArray | None = None) -> Block:
    """A Block from (G, n) arrays of player indices and their ranks per seat (1 is first, equal
    ranks tie), and optionally each game's deal group (each game its own by default)."""
    import numpy as np

    players = np.asarray(players, dtype=np.int64)
    ranks = np.asarray(ranks, dtype=np.int64)
    if players.ndim != 2 or players.shape != ranks.shape or not MIN_PLAYERS <= players.shape[1] <= MAX_PLAYERS:
        raise FitError(f"games need {MIN_PLAYERS} to {MAX_PLAYERS} players with one rank each")
    count, size = players.shape
    order = np.argsort(ranks, axis=1, kind="stable")
    players = np.take_along_axis(players, order, axis=1)
    ranks = np.take_along_axis(ranks, order, axis=1)
    if count and (np.sort(players, axis=1)[:, 1:] == np.sort(players, axis=1)[:, :-1]).any():
        raise FitError("a player cannot take two seats in one game")
    positions = np.broadcast_to(np.arange(size), (count, size))
    new_place = np.ones((count, size), dtype=bool)
    new_place[:, 1:] = ranks[:, 1:] != ranks[:, :-1]
    starts = np.maximum.accumulate(np.where(new_place, positions, 0), axis=1)
    last_place = np.ones((count, size), dtype=bool)
    last_place[:, :-1] = ranks[:, :-1] != ranks[:, 1:]
    ends = np.minimum.accumulate(np.where(last_place, positions, size)[:, ::-1], axis=1)[:, ::-1]
    groups = np.arange(count, dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64)
    if groups.shape != (count,):
        raise FitError("one deal group per game")
    return Block(players, starts, ends, groups)


def encode(
    games: Iterable[tuple[Sequence[Key], Sequence[int]]], groups: Iterable[Hashable] | None = None
) -> tuple[list[Key], Games]:
    """Games as (players per seat, ranks per seat) pairs, and optionally each game's deal group
    (any hashable: games of one group are resampled together), as arrays; with the players in
    the order of their indices."""
    import numpy as np

    index: dict[Key, int] = {}
    group_index: dict[Hashable, int] = {}
    by_size: dict[int, tuple[list[list[int]], list[Sequence[int]], list[int]]] = {}
    group_of = iter(groups) if groups is not None else None
    for number, (players, ranks) in enumerate(games):
        size = len(players)
        if not MIN_PLAYERS <= size <= MAX_PLAYERS or len(ranks) != size:
            raise FitError(f"game {number}: {size} players and {len(ranks)} ranks")
        seats, rank_list, group_list = by_size.setdefault(size, ([], [], []))
        seats.append([index.setdefault(player, len(index)) for player in players])
        rank_list.append(ranks)
        group = next(group_of) if group_of is not None else number
        group_list.append(group_index.setdefault(group, len(group_index)))
    blocks = tuple(
        block_from_arrays(np.array(seats), np.array(ranks), np.array(group_list))
        for _size, (seats, ranks, group_list) in sorted(by_size.items())
    )
    return list(index), Games(len(index), blocks)


# --- The likelihood ---------------------------------------------------------------------------


@dataclass
class _Terms:
    """What one block's likelihood and derivatives share at one theta."""

    w: FloatArray  # exp(theta - the game's largest), per position
    denominators: FloatArray  # the sum of w over each position's choice set
    first: FloatArray  # sum of 1/D over the choices that include each position
    log_likelihood: FloatArray  # per game


def _terms(block: Block, theta: FloatArray) -> _Terms:
    import numpy as np

    strengths = theta[block.players]
    shifted = strengths - strengths.max(axis=1, keepdims=True)
    w = np.exp(shifted)
    suffix = np.cumsum(w[:, ::-1], axis=1)[:, ::-1]  # sum of w from each position on
    denominators = np.take_along_axis(suffix, block.starts, axis=1)
    first = np.take_along_axis(np.cumsum(1.0 / denominators, axis=1), block.ends, axis=1)
    return _Terms(w, denominators, first, (shifted - np.log(denominators)).sum(axis=1))


class _Objective:
    """The negative log posterior over ``games`` with per-game weights (a bootstrap's counts)."""

    def __init__(self, games: Games, precision: float, weights: Sequence[FloatArray] | None = None) -> None:
        import numpy as np

        self.games, self.precision = games, precision
        self.weights = list(weights) if weights is not None else [np.ones(len(b.groups)) for b in games.blocks]
        self.flat = [block.players.ravel() for block in games.blocks]
        self.cache: tuple[bytes, list[_Terms]] | None = None
        self.evaluations = 0

    def terms(self, theta: FloatArray) -> list[_Terms]:
        key = theta.tobytes()
        if self.cache is None or self.cache[0] != key:
            self.cache = (key, [_terms(block, theta) for block in self.games.blocks])
        return self.cache[1]

    def value_and_gradient(self, theta: FloatArray) -> tuple[float, FloatArray]:
        import numpy as np

        self.evaluations += 1
        value = 0.5 * self.precision * float(theta @ theta)
        gradient = self.precision * theta
        for terms, weights, flat in zip(self.terms(theta), self.weights, self.flat, strict=True):
            value -= float(weights @ terms.log_likelihood)
            per_position = weights[:, None] * (terms.w * terms.first - 1.0)
            gradient = gradient + np.bincount(flat, weights=per_position.ravel(), minlength=self.games.count)
        return value, gradient

    def hessian_product(self, theta: FloatArray, vector: FloatArray) -> FloatArray:
        import numpy as np

        product = self.precision * vector
        for block, terms, weights, flat in zip(
            self.games.blocks, self.terms(theta), self.weights, self.flat, strict=True
        ):
            v = vector[block.players]
            suffix = np.cumsum((terms.w * v)[:, ::-1], axis=1)[:, ::-1]
            chosen = np.take_along_axis(suffix, block.starts, axis=1) / terms.denominators**2
            second = np.take_along_axis(np.cumsum(chosen, axis=1), block.ends, axis=1)
            per_position = weights[:, None] * terms.w * (v * terms.first - second)
            product = product + np.bincount(flat, weights=per_position.ravel(), minlength=self.games.count)
        return product

    def hessian(self, theta: FloatArray, members: IntArray, *, dense: bool) -> FloatArray:
        """The Hessian over ``members`` (whole, or only its diagonal), prior included."""
        import numpy as np

        size = len(members)
        local = np.full(self.games.count, -1, dtype=np.int64)
        local[members] = np.arange(size)
        result = np.zeros(size * size if dense else size)
        for block, terms, weights in zip(self.games.blocks, self.terms(theta), self.weights, strict=True):
            inside = local[block.players[:, 0]] >= 0  # a game lies wholly in one component
            if not inside.any():
                continue
            players, w = local[block.players[inside]], terms.w[inside]
            weight = weights[inside][:, None]
            squares = np.take_along_axis(
                np.cumsum(1.0 / terms.denominators[inside] ** 2, axis=1), block.ends[inside], axis=1
            )
            diagonal = weight * (w * terms.first[inside] - w * w * squares)
            if not dense:
                result += np.bincount(players.ravel(), weights=diagonal.ravel(), minlength=size)
                continue
            result += np.bincount((players * (size + 1)).ravel(), weights=diagonal.ravel(), minlength=size * size)
            width = players.shape[1]
            for a in range(width - 1):
                for b in range(a + 1, width):
                    # Both are in every choice set up to the end of a's place (a is before b).
                    value = -weight[:, 0] * w[:, a] * w[:, b] * squares[:, a]
                    result += np.bincount(players[:, a] * size + players[:, b], weights=value, minlength=size * size)
                    result += np.bincount(players[:, b] * size + players[:, a], weights=value, minlength=size * size)
        if dense:
            matrix = result.reshape(size, size)
            matrix[np.diag_indices(size)] += self.precision
            return matrix
        return result + self.precision


def _solve(objective: _Objective, start: FloatArray) -> tuple[FloatArray, int]:
    from scipy.optimize import minimize

    result = minimize(
        objective.value_and_gradient,
        start,
        jac=True,
        hessp=objective.hessian_product,
        method="trust-krylov",
        options={"gtol": 1e-6, "maxiter": 200},
    )
    return result.x, int(result.nit)


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
    objective = _Objective(games, precision)
    theta, iterations = _solve(objective, np.zeros(games.count))
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


def _centred_variances(objective: _Objective, theta: FloatArray, members: IntArray) -> FloatArray:
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
        objective = _Objective(games, fit.precision, [counts[p] for p in positions])
        theta, _ = _solve(objective, fit.theta)
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
