"""Elo over many games at once, bit for bit what EloTable.apply gives one game at a time.

The recompute folds ten million games (benchmarks/scale.py); one EloTable.apply costs tens of
microseconds in Python, so this folds whole groups of games in numpy instead. Two games commute
when they share no player, so the games are scheduled in waves:

- a match's wave is one more than the latest wave of any of its players, so each player's matches
  keep their order and the matches of one wave share no player;
- within a wave, the matches' games are taken index by index, and games of one index and one
  table size are one vector step.

Each player thus meets its games in the canonical order, and every step does game_deltas'
arithmetic in game_deltas' order (the same IEEE operations on the same values, each pair visited
once, totals accumulated in the same sequence), so the ratings are identical to EloTable's, not
merely close; tests/stats/test_elo_batch.py checks it on random histories. The one
transcendental, 10 ** (R / 400), is taken with Python's own power, element by element: numpy's
vector power may differ in the last bit on some processors.

numpy is imported inside the functions (the kit's ``fit`` extra), as in plackett_luce.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .elo import K_ESTABLISHED, K_PROVISIONAL, PROVISIONAL_GAMES, START_RATING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

MAX_PLAYERS = 5


@dataclass
class EloArrays:
    """Ratings and rated-game counts of players 0..n-1 (dense indexes chosen by the caller)."""

    ratings: NDArray[np.float64]
    games: NDArray[np.int64]

    @classmethod
    def empty(cls) -> EloArrays:
        import numpy as np

        return cls(np.zeros(0, dtype=np.float64), np.zeros(0, dtype=np.int64))

    def grow(self, players: int) -> None:
        """Make room for ``players`` players in all; the new ones start at START_RATING, 0 games."""
        import numpy as np

        extra = players - len(self.ratings)
        if extra > 0:
            self.ratings = np.concatenate([self.ratings, np.full(extra, START_RATING)])
            self.games = np.concatenate([self.games, np.zeros(extra, dtype=np.int64)])


@dataclass
class Folded:
    """Per game and seat (shape: games x MAX_PLAYERS; NaN beyond a game's table size)."""

    before: NDArray[np.float64]
    after: NDArray[np.float64]
    delta: NDArray[np.float64]  # as game_deltas gives it (after - before may round otherwise)
    k: NDArray[np.float64]


def fold_games(
    state: EloArrays,
    *,
    game_match: NDArray[np.int64],
    players: NDArray[np.int64],
    ranks: NDArray[np.int64],
    sizes: NDArray[np.int64],
    record: bool = True,
) -> Folded:
    """Apply games to ``state`` as EloTable.apply would, one after the other in the given order.

    ``game_match``: each game's match, non-decreasing (a match's games together, by index);
    ``players`` and ``ranks``: games x MAX_PLAYERS, seat by seat, the first ``sizes[g]`` used.
    Without ``record``, only ``after`` is kept (before, delta and k are left empty)."""
    import numpy as np

    count = len(sizes)
    after = np.full((count, MAX_PLAYERS), np.nan)
    before, delta, k = (after.copy() for _ in range(3)) if record else (np.empty((0, MAX_PLAYERS)),) * 3
    if not count:
        return Folded(before, after, delta, k)
    if np.any((sizes < 2) | (sizes > MAX_PLAYERS)):
        raise ValueError("a rated game has 2 to 5 players")
    if np.any(np.diff(game_match) < 0):
        raise ValueError("the games must come match by match")
    used = np.arange(MAX_PLAYERS)[None, :] < sizes[:, None]
    _check_seats(players, used)
    state.grow(int(players[used].max()) + 1)
    first = np.searchsorted(game_match, game_match, side="left")
    position = np.arange(count) - first  # the game's place in its match
    wave = _waves(game_match, players, used)
    order = np.lexsort((position, wave))
    keys = np.stack([wave[order], position[order]])
    starts = np.flatnonzero(np.concatenate([[True], np.any(keys[:, 1:] != keys[:, :-1], axis=0)]))
    out = Folded(before, after, delta, k)
    for start, stop in zip(starts, [*starts[1:], count], strict=True):
        games = order[start:stop]
        _step(state, games, players[games], ranks[games], sizes[games], out)
    return out


def _check_seats(players: NDArray[np.int64], used: NDArray[np.bool_]) -> None:
    import numpy as np

    if np.any(players[used] < 0):
        raise ValueError("a player is a non-negative index")
    marked = np.where(used, players, -1 - np.arange(MAX_PLAYERS)[None, :])  # unused seats all differ
    ordered = np.sort(marked, axis=1)
    if np.any(ordered[:, 1:] == ordered[:, :-1]):
        raise ValueError("a player cannot take two seats in a rated game")


def _waves(game_match: NDArray[np.int64], players: NDArray[np.int64], used: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Each game's wave: its match's, one more than the last wave of any of the match's players."""
    import numpy as np

    rows = np.repeat(game_match, used.sum(axis=1))
    span = int(players[used].max()) + 1
    pairs = np.unique(rows * span + players[used])  # (match, player), by match
    pair_match = pairs // span
    matches, first = np.unique(pair_match, return_index=True)
    bounds = [*first.tolist(), len(pairs)]
    members = (pairs % span).tolist()
    last: dict[int, int] = {}
    waves = []
    for place in range(len(matches)):
        who = members[bounds[place] : bounds[place + 1]]
        wave = 1 + max(last.get(player, 0) for player in who)
        for player in who:
            last[player] = wave
        waves.append(wave)
    by_match = np.asarray(waves, dtype=np.int64)
    return by_match[np.searchsorted(matches, game_match)]


def _step(
    state: EloArrays,
    games: NDArray[np.int64],
    players: NDArray[np.int64],
    ranks: NDArray[np.int64],
    sizes: NDArray[np.int64],
    out: Folded,
) -> None:
    """Games that share no player, each of 2 to 5 seats: game_deltas for each, as vectors.

    Seats beyond a game's size take part as zeros: adding or taking 0.0 changes no total. Each
    seat's total gets its terms in game_deltas' order: the pairs (earlier seat, it) one after
    the other, then the pairs (it, later seat)."""
    import numpy as np

    used = np.arange(MAX_PLAYERS)[None, :] < sizes[:, None]
    seated = np.where(used, players, 0)
    rating = np.where(used, state.ratings[seated], 0.0)
    ks = np.where(state.games[seated] < PROVISIONAL_GAMES, K_PROVISIONAL, K_ESTABLISHED)
    # Python's power, as game_deltas takes it (numpy's may differ in the last bit).
    strength = np.ones_like(rating)
    strength[used] = [10.0**exponent for exponent in (rating[used] / 400.0).tolist()]
    mine, other = strength[:, :, None], strength[:, None, :]
    rank, other_rank = ranks[:, :, None], ranks[:, None, :]
    score = np.where(rank < other_rank, 1.0, np.where(rank == other_rank, 0.5, 0.0))
    pair = used[:, :, None] & used[:, None, :]
    surprise = np.where(pair, score - mine / (mine + other), 0.0)  # [g, i, j], read for i < j
    totals = np.zeros_like(rating)
    for i in range(MAX_PLAYERS - 1):
        for j in range(i + 1, MAX_PLAYERS):
            totals[:, i] += surprise[:, i, j]
        totals[:, i + 1 :] -= surprise[:, i, i + 1 :]
    deltas = ks / (sizes - 1)[:, None] * totals
    new = rating + deltas
    state.ratings[players[used]] = new[used]
    state.games[players[used]] += 1
    out.after[games] = np.where(used, new, np.nan)
    if len(out.before):
        for target, values in ((out.before, rating), (out.delta, deltas), (out.k, ks)):
            target[games] = np.where(used, values, np.nan)
