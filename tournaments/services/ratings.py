"""The one rating writer (the recompute that must reproduce it is ratings_recompute.py).

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
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from lineit.stats.elo import EloTable

from ..models import Game, Match, MatchEntrant, Rating, RatingEvent, RatingLedger

RatingKey = tuple[int, str, str]  # version id, ruleset, rules version


def rating_ledger_lock() -> RatingLedger:
    """The ledger row, locked until the transaction ends: whoever holds it is the one writer."""
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
    ledger = rating_ledger_lock()
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
    ratings_table_save(table, existing, keys)
    now = timezone.now()
    Match.objects.filter(pk__in=skip).update(rated_at=now)
    last = Match.objects.aggregate(last=Max("rating_order"))["last"] or 0
    applied = [Match(pk=pk, rated_at=now, rating_order=last + place) for place, pk in enumerate(apply, start=1)]
    Match.objects.bulk_update(applied, ["rated_at", "rating_order"], batch_size=1000)
    ledger.applied_matches += len(apply)
    ledger.save(update_fields=["applied_matches"])
    return len(apply)


def ratings_table_save(table: EloTable[RatingKey], existing: dict[RatingKey, Rating], keys: set[RatingKey]) -> None:
    """Write ``table``'s ratings of ``keys``: update the ``existing`` rows, create the others."""
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
