"""The recompute: every rating again from the stored results, in the canonical order the writer
(ratings.py) applies them, compared with the live table and the event log, and with ``write``
put in their place. It holds the writer's ledger lock, so no match is applied meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db import transaction
from django.utils import timezone
from numpy.typing import NDArray

from lineit.stats.elo import EloTable
from lineit.stats.elo_batch import MAX_PLAYERS, EloArrays, Folded, fold_games

from ..models import Match, Rating, RatingEvent, RatingLedger
from ..selectors import results
from ..selectors.results import (
    EventRows,
    GameArrays,
    Places,
    entrant_rows,
    game_arrays,
    rating_event_rows,
    raw_connection,
)
from .ratings import RatingKey, rating_ledger_lock, ratings_table_save


@dataclass
class Recompute:
    table: EloTable[RatingKey]
    events: int  # how many rating events the recompute made
    mismatches: list[str]


# Matches read and folded at a time: a bounded memory for any length of history.
RECOMPUTE_CHUNK = 50_000


def ratings_recompute(*, write: bool = False) -> Recompute:
    """Recompute every rating from stored results in canonical order and compare it with the live
    table and event log. With ``write``, replace both with the recomputed ones.

    A chunk of matches at a time, folded in numpy (lineit.stats.elo_batch: the same floats as the
    writer's EloTable); each match's recomputed events are compared with its stored ones by
    fingerprint: how many, the bits of every ``after``, and which game and version each is for.
    Ten million games in about a minute (benchmarks/scale.py)."""
    with transaction.atomic():
        rating_ledger_lock()
        recompute = _Recompute(record=False)
        made = 0
        mismatches: list[str] = []
        for chunk, folded in recompute.chunks(read_ahead=True):
            made += len(folded.after)
            stored = _fingerprints(chunk.places, *chunk.stored_events())
            differing = np.flatnonzero(np.any(stored != folded.fingerprints, axis=0))
            mismatches += [f"rating events of match {chunk.ids[place]} differ" for place in differing.tolist()]
        stored_count = RatingEvent.objects.count()
        if stored_count != made:
            mismatches.append(f"{stored_count} rating events stored, {made} recomputed")
        table = recompute.table()
        mismatches += _compare_table(table)
        if write and mismatches:
            _rewrite()
            RatingLedger.objects.filter(name="elo").update(recomputed_at=timezone.now())
    return Recompute(table, made, mismatches)


@dataclass
class _Chunk:
    """Some applied matches in canonical order: their ids, rulesets and rules versions."""

    ids: list[int]
    rulesets: list[tuple[str, str]]
    entrants: NDArray[np.int64] = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    games: GameArrays | None = None
    events: EventRows | None = None

    @property
    def places(self) -> int:
        return len(self.ids)

    def read(self, raw: Any = None) -> None:
        """Its entrants, games and stored rating events (on ``raw``: see chunks)."""
        self.entrants = entrant_rows(self.ids, raw=raw)
        self.games = game_arrays(self.ids, raw=raw)
        self.events = rating_event_rows(self.ids, raw=raw)

    def forget(self) -> None:
        self.games = self.events = None

    def stored_events(
        self,
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
        """(place in the chunk, game index, version, after) of its stored events."""
        events = self.events if self.events is not None else rating_event_rows(self.ids)
        return Places(self.ids)(events.match_id), events.game_index, events.version_id, events.after


@dataclass
class _FoldedEvents:
    """The events of a chunk, one per game and seat, in canonical order."""

    place: NDArray[np.int64]  # the match's place in the chunk
    game_index: NDArray[np.int64]
    version_id: NDArray[np.int64]
    ruleset: NDArray[np.int64]  # index in _Recompute.rulesets
    folded: Folded
    after: NDArray[np.float64]
    fingerprints: NDArray[np.int64]


class _Recompute:
    """The applied matches, folded a chunk at a time into one EloArrays. A player is a version
    in a ruleset and rules version: index version_id * len(rulesets) + the pair's place."""

    def __init__(self, *, record: bool) -> None:
        self.record = record  # keep each event's before, delta and k (to write them), not only after
        applied = list(
            Match.objects.filter(ranked=True, rated_at__isnull=False, status=Match.Status.FINISHED)
            .order_by("rating_order", "id")
            .values_list("id", "ruleset", "rules_version")
        )
        self.applied = [(match_id, (ruleset, rules_version)) for match_id, ruleset, rules_version in applied]
        self.rulesets = sorted({pair for _, pair in self.applied})
        self.state = EloArrays.empty()

    def chunks(self, *, read_ahead: bool = False) -> Iterator[tuple[_Chunk, _FoldedEvents]]:
        """Each chunk, read and folded. With ``read_ahead`` (PostgreSQL), a thread reads the next
        chunk on this transaction's connection while this one folds: the caller must not use the
        database until the iteration ends."""
        parts = []
        for start in range(0, len(self.applied), RECOMPUTE_CHUNK):
            part = self.applied[start : start + RECOMPUTE_CHUNK]
            parts.append(_Chunk([match_id for match_id, _ in part], [pair for _, pair in part]))
        if not (read_ahead and results.fast_reads() and parts):
            for chunk in parts:
                chunk.read()
                yield chunk, self._fold(chunk)
            return
        raw = raw_connection()
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="recompute-read") as reader:
            pending = reader.submit(parts[0].read, raw)
            for place, chunk in enumerate(parts):
                pending.result()
                if place + 1 < len(parts):
                    pending = reader.submit(parts[place + 1].read, raw)
                yield chunk, self._fold(chunk)
                chunk.forget()

    def _fold(self, chunk: _Chunk) -> _FoldedEvents:
        code = {pair: place for place, pair in enumerate(self.rulesets)}
        match_ruleset = np.array([code[pair] for pair in chunk.rulesets], dtype=np.int64)
        place_of = Places(chunk.ids)
        entrants = chunk.entrants  # match, index, version
        by_entrant = np.full((chunk.places, MAX_PLAYERS), -1, dtype=np.int64)
        by_entrant[place_of(entrants[:, 0]), entrants[:, 1]] = entrants[:, 2]
        games = chunk.games
        assert games is not None, "a chunk is read before it is folded"
        place = place_of(games.match_id)
        order = np.lexsort((games.index, place))  # canonical: the chunk's order, then the index
        place, index, seats, ranks, sizes = (
            place[order], games.index[order], games.seats[order], games.ranks[order], games.sizes[order]
        )  # fmt: skip
        used = np.arange(MAX_PLAYERS)[None, :] < sizes[:, None]
        versions = np.where(used, by_entrant[place[:, None], np.where(used, seats, 0)], -1)
        if np.any(used & (versions < 0)):
            raise ValueError("a game seats an entrant its match does not have")
        rulesets = len(self.rulesets)
        players = np.where(used, versions * rulesets + match_ruleset[place][:, None], -1)
        folded = fold_games(self.state, game_match=place, players=players, ranks=ranks, sizes=sizes, record=self.record)
        game, seat = np.nonzero(used)
        after = folded.after[game, seat]
        event_place, event_index, event_version = place[game], index[game], versions[game, seat]
        return _FoldedEvents(
            place=event_place,
            game_index=event_index,
            version_id=event_version,
            ruleset=match_ruleset[event_place],
            folded=folded,
            after=after,
            fingerprints=_fingerprints(chunk.places, event_place, event_index, event_version, after),
        )

    def table(self) -> EloTable[RatingKey]:
        table: EloTable[RatingKey] = EloTable()
        rulesets = len(self.rulesets)
        for player in np.flatnonzero(self.state.games).tolist():
            ruleset, rules_version = self.rulesets[player % rulesets]
            key = (player // rulesets, ruleset, rules_version)
            table.seed(key, float(self.state.ratings[player]), int(self.state.games[player]))
        return table


def _fingerprints(
    places: int,
    place: NDArray[np.int64],
    game_index: NDArray[np.int64],
    version_id: NDArray[np.int64],
    after: NDArray[np.float64],
) -> NDArray[np.int64]:
    """Per match: how many events, the sum of their ``after`` values' IEEE bits (as 64-bit
    integers, wrapping: any changed bit shows, whatever the order), and of game_index * 2^32 +
    version_id (which events). Shape: 3 x places."""
    out = np.zeros((3, places), dtype=np.int64)
    np.add.at(out[0], place, 1)
    np.add.at(out[1], place, np.ascontiguousarray(after, dtype=np.float64).view(np.int64))
    np.add.at(out[2], place, (game_index << 32) + version_id)
    return out


def _rewrite() -> None:
    """Replace the event log and the live table with the recomputed ones (a second fold)."""
    RatingEvent.objects.all().delete()
    Rating.objects.all().delete()
    recompute = _Recompute(record=True)
    for chunk, events in recompute.chunks():
        folded, rows = events.folded, []
        for place, game_index, version_id, ruleset, before, after, delta, k in zip(
            events.place.tolist(),
            events.game_index.tolist(),
            events.version_id.tolist(),
            events.ruleset.tolist(),
            *(_by_event(values, events) for values in (folded.before, folded.after, folded.delta, folded.k)),
            strict=True,
        ):
            match_id = chunk.ids[place]
            rows.append(
                RatingEvent(
                    key=f"{match_id}:{game_index}:{version_id}",
                    match_id=match_id,
                    game_index=game_index,
                    version_id=version_id,
                    ruleset=recompute.rulesets[ruleset][0],
                    rules_version=recompute.rulesets[ruleset][1],
                    before=before,
                    after=after,
                    delta=delta,
                    k=k,
                )
            )
        RatingEvent.objects.bulk_create(rows, batch_size=5000)
    table = recompute.table()
    ratings_table_save(table, {}, set(table.ratings))


def _by_event(values: NDArray[np.float64], events: _FoldedEvents) -> list[float]:
    """Per game and seat values, one per event, in the events' order."""
    game, seat = np.nonzero(~np.isnan(events.folded.after))
    picked: list[float] = values[game, seat].tolist()
    return picked


def _compare_table(table: EloTable[RatingKey]) -> list[str]:
    mismatches = []
    live = {(r.version_id, r.ruleset, r.rules_version): (r.rating, r.games) for r in Rating.objects.all()}
    for key in set(live) | set(table.ratings):
        expected = (table.ratings.get(key), table.games.get(key))
        if live.get(key) != expected:
            mismatches.append(f"rating {key}: live {live.get(key)}, recomputed {expected}")
    return mismatches
