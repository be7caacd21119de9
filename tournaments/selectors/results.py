"""The stored results as arrays, a chunk of matches at a time: what the Elo recompute
(services/ratings.py) and the whole-history fit (services/ratings_fit.py) read, ten million games
of it (benchmarks/scale.py).

On PostgreSQL each query returns one value: its rows' numbers packed as big-endian binary
(int8send, float8send: exact) by string_agg, read by numpy with no Python per row; seats and
ranks (single digits: at most five seats) as one text of digits. Elsewhere through the ORM.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection
from numpy.typing import NDArray

from lineit.stats.elo_batch import MAX_PLAYERS

from ..models import Game, MatchEntrant, RatingEvent


class Places:
    """A match id's place in a chunk, for arrays of ids."""

    def __init__(self, ids: list[int]) -> None:
        self.ids = np.asarray(ids, dtype=np.int64)
        self.sorter = np.argsort(self.ids)

    def __call__(self, match_ids: NDArray[np.int64]) -> NDArray[np.int64]:
        found = self.sorter[np.searchsorted(self.ids, match_ids, sorter=self.sorter)]
        return np.asarray(found, dtype=np.int64)


def fast_reads() -> bool:
    return connection.vendor == "postgresql"


@dataclass
class GameArrays:
    """Games of some matches, in no particular order."""

    match_id: NDArray[np.int64]
    index: NDArray[np.int64]
    deal: NDArray[np.int64]
    seats: NDArray[np.int64]  # games x MAX_PLAYERS, -1 beyond the table
    ranks: NDArray[np.int64]
    sizes: NDArray[np.int64]


def _packed(sql: str, ids: list[int], raw: Any) -> list[bytes]:
    """One row of packed values. ``raw``: a psycopg connection to read on instead of Django's
    (the same one, from a thread that reads ahead while the caller folds: see raw_connection)."""
    with raw.cursor() if raw is not None else connection.cursor() as cursor:
        cursor.execute(sql, [ids])
        return [bytes(value or b"") for value in cursor.fetchone()]


def raw_connection() -> Any:
    """This thread's database connection as psycopg's own (PostgreSQL only): in the same
    transaction, and usable from another thread while this one leaves it alone."""
    connection.ensure_connection()
    return connection.connection


def entrant_rows(ids: list[int], *, raw: Any = None) -> NDArray[np.int64]:
    """(match, index, version) of each entrant of these matches: entrants x 3."""
    if fast_reads():
        (data,) = _packed(
            "SELECT string_agg(int8send(match_id::bigint) || int8send(index::bigint) || int8send(version_id::bigint),"
            " ''::bytea) FROM tournaments_matchentrant WHERE match_id = ANY(%s)",
            ids,
            raw,
        )
        return np.frombuffer(data, dtype=">i8").astype(np.int64).reshape(-1, 3)
    rows = MatchEntrant.objects.filter(match_id__in=ids).values_list("match_id", "index", "version_id")
    return np.array(list(rows), dtype=np.int64).reshape(-1, 3)


def game_arrays(ids: list[int], *, deals: bool = False, raw: Any = None) -> GameArrays:
    """The games of these matches; their deals only if asked (zeros otherwise)."""
    if fast_reads():
        # From the index that holds seats and ranks (migration 0013): the rows hold replays too.
        # The JSON as PostgreSQL writes it, one text for all: the cheapest for it to make (an
        # expression per row cost it twice as much), its digits and brackets read by numpy.
        deal_column = "string_agg(int8send(deal::bigint), ''::bytea)" if deals else "NULL"
        keys, text, deal_bytes = _packed(
            f"SELECT string_agg(int8send((match_id::bigint << {INDEX_BITS}) | index), ''::bytea),"
            f" convert_to(string_agg(seats::text || ranks::text, ''), 'SQL_ASCII'), {deal_column}"
            " FROM tournaments_game WHERE match_id = ANY(%s)",
            ids,
            raw,
        )
        key = np.frombuffer(keys, dtype=">i8").astype(np.int64)
        match_id, index = key >> INDEX_BITS, key & ((1 << INDEX_BITS) - 1)
        deal = np.frombuffer(deal_bytes, dtype=">i8").astype(np.int64) if deals else np.zeros_like(key)
        sizes, flat = _seats_and_ranks(np.frombuffer(text, dtype=np.uint8))
    else:
        rows = list(Game.objects.filter(match_id__in=ids).values_list("match_id", "index", "deal", "seats", "ranks"))
        match_id, index, deal = (np.array([row[c] for row in rows], dtype=np.int64) for c in range(3))
        sizes = np.array([len(row[3]) for row in rows], dtype=np.int64)
        flat = np.array([v for row in rows for v in (*row[3], *row[4])], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(2 * sizes)[:-1]]).astype(np.int64)
    seats = np.full((len(sizes), MAX_PLAYERS), -1, dtype=np.int64)
    ranks = np.zeros((len(sizes), MAX_PLAYERS), dtype=np.int64)
    for size in np.unique(sizes).tolist():
        if not 2 <= size <= MAX_PLAYERS:
            raise ValueError(f"a stored game of {size} seats")
        chosen = np.flatnonzero(sizes == size)
        first = starts[chosen][:, None] + np.arange(size)[None, :]
        seats[chosen, :size], ranks[chosen, :size] = flat[first], flat[first + size]
    return GameArrays(match_id, index, deal, seats, ranks, sizes)


INDEX_BITS = 24  # a game's index within its match, packed beside the match's id


def _seats_and_ranks(text: NDArray[np.uint8]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """From "[0, 1][2, 1][1, 0][1, 2]...": each game's seats count, and its seats then ranks as
    one flat array. Every value is one digit (at most five seats); anything else is refused."""
    digit = (text >= ord("0")) & (text <= ord("9"))
    if np.any(digit[1:] & digit[:-1]):
        raise ValueError("a stored game's seats or ranks are not single digits")
    opening = np.flatnonzero(text == ord("["))
    before = np.concatenate([[0], np.cumsum(digit)])[opening]  # digits before each bracket
    counts = np.diff(np.concatenate([before, [int(digit.sum())]]))
    seats, ranks = counts[0::2], counts[1::2]
    if len(seats) != len(ranks) or np.any(seats != ranks):
        raise ValueError("a stored game has not one rank per seat")
    return seats.astype(np.int64), text[digit].astype(np.int64) - ord("0")


@dataclass
class EventRows:
    match_id: NDArray[np.int64]
    game_index: NDArray[np.int64]
    version_id: NDArray[np.int64]
    after: NDArray[np.float64]


def rating_event_rows(ids: list[int], *, raw: Any = None) -> EventRows:
    """(match, game index, version, after) of the stored rating events of these matches."""
    if fast_reads():
        (data,) = _packed(
            f"SELECT string_agg(int8send((match_id::bigint << {INDEX_BITS}) | game_index)"
            " || int8send(version_id::bigint) || float8send(after), ''::bytea)"
            " FROM tournaments_ratingevent WHERE match_id = ANY(%s)",
            ids,
            raw,
        )
        rows = np.frombuffer(data, dtype=[("key", ">i8"), ("version", ">i8"), ("after", ">f8")])
        key = rows["key"].astype(np.int64)
        match_id, game_index = key >> INDEX_BITS, key & ((1 << INDEX_BITS) - 1)
        version_id, after = rows["version"].astype(np.int64), rows["after"].astype(np.float64)
    else:
        found = list(
            RatingEvent.objects.filter(match_id__in=ids).values_list("match_id", "game_index", "version_id", "after")
        )
        match_id, game_index, version_id = (np.array([row[c] for row in found], dtype=np.int64) for c in range(3))
        after = np.array([row[3] for row in found], dtype=np.float64)
    return EventRows(match_id, game_index, version_id, after)
