"""The one rating writer, and the recompute that must reproduce it.

Canonical order: ranked matches by id, games by index. The writer applies finished ranked matches
in that order and stops at the first ranked match still queued or running, so the live table
never depends on which worker finished first. Failed and cancelled matches are passed over.
Every writer holds the ledger row lock, so there is only ever one.

The wait is bounded: a ranked match pending for longer than RATINGS_WAIT_SECONDS since it was
scheduled (a worker died under it, it is retried, its bots use every second of their limits) no
longer holds back the matches after it; it is rated when it ends, after them. Each applied match
records its place in the order (``Match.rating_order``), which is what the recompute folds by, so
the live table is still reproduced exactly from the log.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from numpy.typing import NDArray

from lineit.stats.elo import EloTable
from lineit.stats.elo_batch import MAX_PLAYERS, EloArrays, Folded, fold_games

from ..models import Game, Match, MatchEntrant, Rating, RatingEvent, RatingLedger
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

RatingKey = tuple[int, str, str]  # version id, ruleset, rules version


def _lock_ledger() -> RatingLedger:
    RatingLedger.objects.get_or_create(name="elo")
    return RatingLedger.objects.select_for_update().get(name="elo")


@dataclass(frozen=True)
class RatedGame:
    match_id: int
    game_index: int
    ruleset: str
    rules_version: str
    versions: tuple[int, ...]  # per seat
    ranks: tuple[int, ...]  # per seat


def rated_games(match_ids: Iterable[int]) -> Iterator[RatedGame]:
    """The games of these matches, match by match in the order given (the canonical order: see the
    module's docstring), each match's by index, with the version in each seat."""
    ids = list(match_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        entrants: dict[int, dict[int, int]] = {}
        for match_id, index, version_id in MatchEntrant.objects.filter(match_id__in=chunk).values_list(
            "match_id", "index", "version_id"
        ):
            entrants.setdefault(match_id, {})[index] = version_id
        rows = (
            Game.objects.filter(match_id__in=chunk)
            .order_by("match_id", "index")
            .values_list("match_id", "index", "seats", "ranks", "match__ruleset", "match__rules_version")
        )
        games: dict[int, list[RatedGame]] = {match_id: [] for match_id in chunk}
        for match_id, index, seats, ranks, ruleset, rules_version in rows.iterator(chunk_size=5000):
            by_entrant = entrants[match_id]
            games[match_id].append(
                RatedGame(match_id, index, ruleset, rules_version, tuple(by_entrant[e] for e in seats), tuple(ranks))
            )
        for match_id in chunk:
            yield from games[match_id]


def fold(table: EloTable[RatingKey], games: Iterable[RatedGame]) -> list[RatingEvent]:
    """Apply games to ``table`` in the given order; the events that record each change."""
    events = []
    for game in games:
        players = [(version, game.ruleset, game.rules_version) for version in game.versions]
        for change in table.apply(players, game.ranks):
            version_id = change.player[0]
            events.append(
                RatingEvent(
                    key=f"{game.match_id}:{game.game_index}:{version_id}",
                    match_id=game.match_id,
                    game_index=game.game_index,
                    version_id=version_id,
                    ruleset=game.ruleset,
                    rules_version=game.rules_version,
                    before=change.before,
                    after=change.after,
                    delta=change.delta,
                    k=change.k,
                )
            )
    return events


def _next_matches(*, waited_since: datetime) -> tuple[list[int], list[int]]:
    """(finished ranked matches to apply, failed or cancelled ones to pass over), in id order, up
    to the first one still pending that was scheduled after ``waited_since``: those pending since
    before it are waited for no longer (left unrated, to be applied when they end)."""
    apply: list[int] = []
    skip: list[int] = []
    queue = (
        Match.objects.filter(ranked=True, rated_at__isnull=True)
        .order_by("id")
        .values_list("id", "status", "created_at")
    )
    for match_id, status, created_at in queue.iterator(chunk_size=1000):
        if status in Match.PENDING:
            if created_at > waited_since:
                break
            continue
        (apply if status == Match.Status.FINISHED else skip).append(match_id)
    return apply, skip


@transaction.atomic
def ratings_apply_pending() -> int:
    """Apply every ranked result that is next in canonical order; the number of matches applied."""
    ledger = _lock_ledger()
    apply, skip = _next_matches(waited_since=timezone.now() - timedelta(seconds=settings.RATINGS_WAIT_SECONDS))
    if not apply and not skip:
        return 0
    games = list(rated_games(apply))
    keys = {(version, game.ruleset, game.rules_version) for game in games for version in game.versions}
    table: EloTable[RatingKey] = EloTable()
    existing = {}
    for rating in Rating.objects.filter(version_id__in={key[0] for key in keys}):
        key = (rating.version_id, rating.ruleset, rating.rules_version)
        existing[key] = rating
        table.seed(key, rating.rating, rating.games)
    RatingEvent.objects.bulk_create(fold(table, games), batch_size=2000)
    _save_table(table, existing, keys)
    now = timezone.now()
    Match.objects.filter(pk__in=skip).update(rated_at=now)
    last = Match.objects.aggregate(last=Max("rating_order"))["last"] or 0
    applied = [Match(pk=pk, rated_at=now, rating_order=last + place) for place, pk in enumerate(apply, start=1)]
    Match.objects.bulk_update(applied, ["rated_at", "rating_order"], batch_size=1000)
    ledger.applied_matches += len(apply)
    ledger.save(update_fields=["applied_matches"])
    return len(apply)


def _save_table(table: EloTable[RatingKey], existing: dict[RatingKey, Rating], keys: set[RatingKey]) -> None:
    changed, created = [], []
    now = timezone.now()  # bulk_update does not apply auto_now
    for key in keys:
        version_id, ruleset, rules_version = key
        if key in existing:
            rating = existing[key]
            rating.rating, rating.games, rating.updated_at = table.ratings[key], table.games[key], now
            changed.append(rating)
        else:
            created.append(
                Rating(
                    version_id=version_id,
                    ruleset=ruleset,
                    rules_version=rules_version,
                    rating=table.ratings[key],
                    games=table.games[key],
                )
            )
    Rating.objects.bulk_update(changed, ["rating", "games", "updated_at"], batch_size=1000)
    Rating.objects.bulk_create(created, batch_size=1000)


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
        _lock_ledger()
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
    _save_table(table, {}, set(table.ratings))


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
