"""The match state machine: a Match row from queued to running to finished, failed or cancelled.

Here: the queue and priority of each origin (ROUTES) and the sending of a match's run task, the
checks before a match is scheduled, ``match_schedule``, ``match_claim`` (a new attempt: the
match cut into chunks), its lease (``match_deadline``) and progress (``games_recorded``),
``match_release`` and ``match_fail`` (the platform could not run it), ``match_cancel`` and
``match_requeue``. A match's chunks are played in chunks.py, its result written in results.py,
what follows its end is after.py.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Q, QuerySet, Sum
from django.db.models.functions import Least
from django.utils import timezone

from bots.models import BotVersion
from lineit.botkit.limits import Limits
from lineit.botkit.schedule import MatchSpec, longest_seconds
from lineit.botkit.stops import whole_deal_parts
from lineit.botkit.untrusted import storable_text
from lineit.engine import RULES_VERSION
from lineit_platform.errors import ApplicationError, Conflict
from lineit_platform.queueing import BULK, INTERACTIVE, LATER, SOON, WAITED_FOR, send_after_commit

from ...models import LiveGame, Match, MatchChunk, MatchEntrant
from ..ratings import ratings_apply_pending
from .after import match_ended
from .results import entrant_summary

INTERACTIVE_ORIGINS = Match.INTERACTIVE_ORIGINS


# The queue and the priority of a match of each origin (docs/platform.md, "Queues"): what someone
# waits for on the page first, a new version's placement and SPRT games next, the rest after.
ROUTES = {
    Match.Origin.MANUAL: (INTERACTIVE, WAITED_FOR),
    Match.Origin.PLACEMENT: (INTERACTIVE, SOON),
    Match.Origin.SPRT: (INTERACTIVE, SOON),
    Match.Origin.LADDER: (BULK, LATER),
    Match.Origin.TOURNAMENT: (BULK, LATER),
}


def match_queue(origin: str) -> str:
    """The queue a match of this origin is sent to."""
    return ROUTES[Match.Origin(origin)][0]


MATCH_TASK = "tournaments.tasks.match_run_task"


def match_send(match_id: int, *, queue: str, priority: int) -> None:
    """Send the run task of match ``match_id`` to ``queue`` with ``priority``, after commit (the
    sweeper sends a lost one again this way)."""
    send_after_commit(MATCH_TASK, match_id, what=f"match {match_id}", queue=queue, priority=priority)


def match_enqueue(match: Match) -> None:
    """Send one run task of ``match`` to its origin's queue (ROUTES), after commit: one worker
    more for it (each claims the match or joins it, then plays chunks: execution.py)."""
    queue, priority = ROUTES[Match.Origin(match.origin)]
    match_send(match.pk, queue=queue, priority=priority)


def match_duration_check(*, num_players: int, games: int, limits: Limits) -> None:
    """ApplicationError unless such a match fits the match task's time limit
    (MATCH_TIME_LIMIT_SECONDS, less the soft margin) even if every bot uses all the time its limits
    give it (botkit.schedule.longest_seconds): a longer one would be stopped, and retried, while
    its bots still played by the rules, and never finish."""
    longest = longest_seconds(num_players, games, limits)
    allowed = settings.MATCH_TIME_LIMIT_SECONDS - settings.MATCH_SOFT_MARGIN_SECONDS
    if longest > allowed:
        raise ApplicationError(
            f"{games} games of {num_players} bots may take up to {longest:.0f} s with these time limits, more "
            f"than a match may last ({allowed} s); ask for fewer games or shorter time limits"
        )


def match_deadline(now: datetime) -> datetime:
    """The end of a running match's lease; progress renews it, the sweeper acts when it passes."""
    return now + timedelta(seconds=settings.MATCH_LEASE_SECONDS)


@transaction.atomic
def ranked_while_active(ranked: bool, versions: Iterable[BotVersion]) -> bool:
    """Whether a match of ``ranked`` settings (a tournament's, a failed match's) is ranked when it
    is scheduled: only while every version in it is still active. One retired since still plays,
    unranked (match_schedule refuses a retired version in a ranked match)."""
    return ranked and all(version.status == BotVersion.Status.ACTIVE for version in versions)


def match_schedule(
    *,
    versions: Sequence[BotVersion],
    games: int,
    ruleset: str = "standard",
    seed: int | None = None,
    duplicate_deals: bool = True,
    rotate_seats: bool = True,
    ranked: bool = False,
    limits: Limits | dict[str, Any] | None = None,
    requested_by: AbstractBaseUser | None = None,
    origin: str = Match.Origin.MANUAL,
) -> Match:
    """A match between ``versions`` (entrant i is versions[i]), queued to run after commit."""
    seed = secrets.randbits(62) if seed is None else seed
    try:
        MatchSpec(len(versions), games, ruleset, seed, rotate_seats, duplicate_deals)
        limits = limits if isinstance(limits, Limits) else Limits.from_dict(limits)
    except (ValueError, TypeError) as error:
        raise ApplicationError(str(error)) from None
    match_duration_check(num_players=len(versions), games=games, limits=limits)
    allowed = {BotVersion.Status.ACTIVE} | (set() if ranked else {BotVersion.Status.RETIRED})
    for version in versions:
        if version.status not in allowed:
            raise ApplicationError(
                f"{version.label} is {version.status}; it cannot play a {'ranked' if ranked else 'test'} match"
            )
    if ranked and len({version.pk for version in versions}) != len(versions):
        raise ApplicationError("a ranked match cannot seat one version twice")
    now = timezone.now()
    entrants = [MatchEntrant(index=index, version=version) for index, version in enumerate(versions)]
    match = Match.objects.create(
        ruleset=ruleset,
        rules_version=RULES_VERSION,
        num_players=len(versions),
        games=games,
        duplicate_deals=duplicate_deals,
        rotate_seats=rotate_seats,
        seed=seed,
        ranked=ranked,
        limits=limits.to_dict(),
        origin=origin,
        requested_by=requested_by,
        max_attempts=settings.MATCH_MAX_ATTEMPTS,
        queued_at=now,
        entrant_summary=entrant_summary(entrants),
    )
    for entrant in entrants:
        entrant.match = match
    MatchEntrant.objects.bulk_create(entrants)
    match_enqueue(match)
    return match


@transaction.atomic
def match_claim(*, match_id: int, worker: str) -> Match | None:
    """Take a queued match (or a running one whose workers all missed its deadline) for this
    worker: a new attempt of it, which plays its chunks not yet recorded.

    One conditional UPDATE, so two workers can never both claim it. None when there is nothing to
    run: finished, cancelled, running healthily elsewhere (match_execute then joins it), or out
    of attempts. The first claim cuts the match into chunks (MATCH_CHUNK_GAMES games, whole
    deals); a later one sends the chunks not yet recorded back to the queue, and keeps the rest."""
    now = timezone.now()
    claimable = Q(status=Match.Status.QUEUED) | Q(status=Match.Status.RUNNING, deadline__lt=now)
    claimed = Match.objects.filter(claimable, pk=match_id, attempts__lt=F("max_attempts")).update(
        status=Match.Status.RUNNING,
        attempts=F("attempts") + 1,
        worker=worker[:200],
        started_at=now,
        deadline=match_deadline(now),
        games_played=0,
        error="",
    )
    if not claimed:
        return None
    match = Match.objects.get(pk=match_id)
    chunks = MatchChunk.objects.filter(match_id=match_id)
    if not chunks.exists():
        deal = match.num_players if match.duplicate_deals else 1
        MatchChunk.objects.bulk_create(
            MatchChunk(match_id=match_id, index=index, first=part.start, stop=part.stop)
            for index, part in enumerate(whole_deal_parts(match.games, 0, settings.MATCH_CHUNK_GAMES, deal))
        )
    chunks.exclude(status=MatchChunk.Status.FINISHED).update(status=MatchChunk.Status.QUEUED)
    kept = Q()
    for first, stop in chunks.filter(status=MatchChunk.Status.FINISHED).values_list("first", "stop"):
        kept |= Q(index__gte=first, index__lt=stop)
    LiveGame.objects.filter(match_id=match_id).exclude(kept).delete()  # an earlier attempt's, not recorded
    played = games_recorded(chunks)
    if played:
        Match.objects.filter(pk=match_id).update(games_played=played)
        match.games_played = played
    return match


def match_spec(match: Match) -> MatchSpec:
    """What the kit plays of ``match`` (its seats, games, ruleset, seed and deals)."""
    return MatchSpec(
        num_players=match.num_players,
        games=match.games,
        ruleset=match.ruleset,
        seed=match.seed,
        rotate_seats=match.rotate_seats,
        duplicate_deals=match.duplicate_deals,
    )


def games_recorded(chunks: QuerySet[MatchChunk]) -> int:
    """The games of the finished ones among ``chunks`` (a match's): its games played so far, as
    a new attempt starts (match_claim) and as each chunk is recorded (chunks.py)."""
    finished = chunks.filter(status=MatchChunk.Status.FINISHED)
    return finished.aggregate(games=Sum(F("stop") - F("first")))["games"] or 0


@transaction.atomic
def match_release(*, match_id: int, attempt: int, error: str) -> Match | None:
    """The platform could not run this attempt: back to queued, or failed when out of attempts."""
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.status != Match.Status.RUNNING or match.attempts != attempt:
        return None
    return match_release_locked(match=match, error=error)


def match_release_locked(*, match: Match, error: str) -> Match:
    """match_release's work on a running match the caller has locked (and checked): back to
    queued, or failed when out of attempts."""
    if match.attempts >= match.max_attempts:
        match_fail(match=match, error=f"failed after {match.attempts} attempts; last: {error}")
    else:
        match.status = Match.Status.QUEUED
        match.queued_at = timezone.now()
        match.error = storable_text(error)[:10_000]
        match.save(update_fields=["status", "queued_at", "error"])
    return match


def match_fail(*, match: Match, error: str) -> None:
    """The platform gave up on the match (it is locked by the caller)."""
    match.status = Match.Status.FAILED
    match.finished_at = timezone.now()
    match.error = storable_text(error)[:10_000]
    match.save(update_fields=["status", "finished_at", "error"])
    ratings_apply_pending()
    match_ended(match)


@transaction.atomic
def match_cancel(*, match: Match) -> Match:
    """Cancel a queued or running match (Conflict for any other); a running attempt's results are
    then ignored, and its worker stops at its next lease renewal (execution.py: Superseded)."""
    updated = Match.objects.filter(pk=match.pk, status__in=Match.PENDING).update(
        status=Match.Status.CANCELLED, finished_at=timezone.now()
    )
    if not updated:
        raise Conflict(f"match {match.pk} is {match.status}; only queued or running matches can be cancelled")
    ratings_apply_pending()
    match.refresh_from_db()
    match_ended(match)
    return match


@transaction.atomic
def match_requeue(*, match: Match) -> Match:
    """Run a match again. A running match is put back in the queue as it is; a failed or cancelled
    one is copied into a new match (the ratings' canonical order has already moved past it)."""
    match = Match.objects.select_for_update().get(pk=match.pk)
    if match.status == Match.Status.RUNNING:
        match.status = Match.Status.QUEUED
        match.queued_at = timezone.now()
        match.attempts = min(match.attempts, match.max_attempts - 1)
        match.save(update_fields=["status", "queued_at", "attempts"])
        # and each chunk not recorded one more try (a chunk out of attempts would fail it at once)
        match.chunks.exclude(status=MatchChunk.Status.FINISHED).update(
            status=MatchChunk.Status.QUEUED, attempts=Least(F("attempts"), match.max_attempts - 1)
        )
        match_enqueue(match)
        return match
    if match.status in (Match.Status.FAILED, Match.Status.CANCELLED):
        versions = [entrant.version for entrant in match.entrants.select_related("version__bot").order_by("index")]
        return match_schedule(
            versions=versions,
            games=match.games,
            ruleset=match.ruleset,
            seed=match.seed,
            duplicate_deals=match.duplicate_deals,
            rotate_seats=match.rotate_seats,
            ranked=ranked_while_active(match.ranked, versions),
            limits=match.limits,
            requested_by=match.requested_by,
            origin=match.origin,
        )
    raise Conflict(f"match {match.pk} is {match.status}; there is nothing to requeue")
