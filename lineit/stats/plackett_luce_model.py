"""The Plackett-Luce model of lineit/stats/plackett_luce.py: games as arrays, and their likelihood
(the negative log posterior, its gradient, Hessian-vector products and Hessian) with the solver
that minimises it. plackett_luce.py fits with it: the components, the centring, the intervals.

The model: player i has a strength theta_i; a game's finishing order is drawn place by place,
each place going to one of the players not yet placed with probability exp(theta_i) over the sum
of theirs. With two players it is Bradley-Terry, which is Elo's model: on the Elo scale
(400 / ln 10 per unit of theta) P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)). One game of N
players is one observation, not N(N-1)/2 pairs counted as independent (the pairs of one table
share their players' luck; counting them as independent would narrow the intervals).

Ties (shared ranks) follow Breslow's rule, as the Cox model does for tied times: the players
sharing a place are each chosen from everyone not yet placed, themselves included. A tie for
first of two thus counts as each of them half-beating the other, like Elo's half point.

Pure functions over plain data. numpy and scipy are imported inside the functions that use them,
so the rest of the kit works without them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]
    IntArray = NDArray[np.int64]
else:
    FloatArray = IntArray = Any

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


class Objective:
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


def solve(objective: Objective, start: FloatArray) -> tuple[FloatArray, int]:
    """The theta that minimises ``objective`` from ``start`` (trust region, Hessian-vector
    products), and the iterations it took."""
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
