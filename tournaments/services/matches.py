"""The match state machine: schedule, claim, run, record, release, cancel, requeue, sweep."""

from __future__ import annotations

import functools
import logging
import secrets
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from bots.models import BotVersion
from bots.runner import sandbox_match_run
from bots.services import bot_validations_resend, bot_versions_match_health_record
from lineit.botkit.limits import Limits
from lineit.botkit.referee import GameRecord, MatchResult, PlatformFailure
from lineit.botkit.schedule import MatchSpec, longest_seconds
from lineit.botkit.untrusted import storable_text
from lineit.engine import RULES_VERSION
from lineit_platform.errors import ApplicationError, Conflict
from lineit_platform.notifications import notify_match_ended
from lineit_platform.queueing import BULK, INTERACTIVE, LATER, SOON, WAITED_FOR, resend_lost, send_after_commit

from ..models import Game, GameFailure, LiveGame, Match, MatchEntrant, compress_replay
from .ratings import ratings_apply_pending

logger = logging.getLogger(__name__)


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


def _send(match_id: int, *, queue: str, priority: int) -> None:
    send_after_commit(
        "tournaments.tasks.match_run_task", match_id, what=f"match {match_id}", queue=queue, priority=priority
    )


def _queue(match: Match) -> None:
    queue, priority = ROUTES[Match.Origin(match.origin)]
    _send(match.pk, queue=queue, priority=priority)


def _ended(match: Match) -> None:
    """A match ended (finished, failed or cancelled): its tournament, if any, may advance.

    The one call from the matches domain up to the tournaments domain. It only sends the
    tournament's advance task (by name, after commit), which locks the tournament and advances it
    once every match of its round has ended; a lost message (broker down) is made up for by the
    tournaments tick. Its live games go: its Game rows (or nothing) are what remains."""
    LiveGame.objects.filter(match_id=match.pk).delete()
    if match.origin == Match.Origin.SPRT:  # its test folds it in, or tries it again (services/sprt.py)
        send_after_commit("tournaments.tasks.sprt_match_ended_task", match.pk, what=f"the SPRT of match {match.pk}")
    if match.tournament_id is not None:
        tournament = match.tournament_id
        send_after_commit(
            "tournaments.tasks.tournament_advance_task", tournament, what=f"the advance of tournament {tournament}"
        )
    notify_match_ended(match)  # a requested test match tells who asked, after commit (no query here)


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
    _queue(match)
    return match


def match_claim(*, match_id: int, worker: str) -> Match | None:
    """Take a queued match (or a running one whose worker missed its deadline) for this worker.

    One conditional UPDATE, so two workers can never both claim it. None when there is nothing to
    run: finished, cancelled, running healthily elsewhere, or out of attempts."""
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
    LiveGame.objects.filter(match_id=match_id).delete()  # an earlier attempt's
    return Match.objects.get(pk=match_id)


def match_spec(match: Match) -> MatchSpec:
    return MatchSpec(
        num_players=match.num_players,
        games=match.games,
        ruleset=match.ruleset,
        seed=match.seed,
        rotate_seats=match.rotate_seats,
        duplicate_deals=match.duplicate_deals,
    )


def match_execute(*, match_id: int, worker: str) -> Match | None:
    """Claim, run in the sandbox, record. Platform failures release the match and propagate, so
    the task retries; a bot's failures are part of the result."""
    match = match_claim(match_id=match_id, worker=worker)
    if match is None:
        return None
    attempt = match.attempts
    entrants = list(match.entrants.select_related("version__bot").order_by("index"))
    progress = _Progress(match.pk, attempt)
    try:
        result = sandbox_match_run(
            spec=match_spec(match),
            sources=[entrant.version.source() for entrant in entrants],
            limits=Limits.from_dict(match.limits),
            on_game=progress,
        )
    except BaseException as error:
        if isinstance(error, PlatformFailure) and error.detail:
            logger.warning("match %s: %s; sandbox output: %s", match.pk, error, error.detail[-2000:])
        match_release(match_id=match.pk, attempt=attempt, error=f"{type(error).__name__}: {error}")
        raise
    match_record_result(match_id=match.pk, attempt=attempt, result=result)
    match.refresh_from_db()
    return match


class _Progress:
    """Counts games as they finish and renews the lease, writing at most every tenth of a lease
    (progress only: results are written once, at the end)."""

    def __init__(self, match_id: int, attempt: int) -> None:
        self.match_id = match_id
        self.attempt = attempt
        self.played = 0
        self.written = time.monotonic()
        self.every = settings.MATCH_LEASE_SECONDS / 10

    def __call__(self, record: GameRecord) -> None:
        self.played += 1
        # The game, to be watched at once: one row, in its own transaction (a stale attempt's
        # rows are never shown, and are removed when the match is claimed again or ends).
        LiveGame.objects.bulk_create(
            [
                LiveGame(
                    match_id=self.match_id,
                    attempt=self.attempt,
                    index=record.index,
                    seats=list(record.seats),
                    scores=list(record.scores),
                    ranks=list(record.ranks),
                    replay=compress_replay(record.replay),
                )
            ],
            ignore_conflicts=True,
        )
        if time.monotonic() - self.written >= self.every:
            self.written = time.monotonic()
            Match.objects.filter(pk=self.match_id, attempts=self.attempt, status=Match.Status.RUNNING).update(
                games_played=self.played, deadline=match_deadline(timezone.now())
            )


@transaction.atomic
def match_record_result(*, match_id: int, attempt: int, result: MatchResult) -> bool:
    """Write every game, failure and total of one attempt, finish the match and apply ratings, in
    one transaction. Idempotent: a second delivery, or a stale attempt whose match was requeued,
    records nothing and returns False."""
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.status != Match.Status.RUNNING or match.attempts != attempt:
        logger.info(
            "match %s: result of attempt %s ignored (%s, attempt %s)", match_id, attempt, match.status, match.attempts
        )
        return False
    if len(result.games) != match.games:
        raise ApplicationError(f"match {match_id}: {len(result.games)} games in the result, {match.games} expected")
    entrants = {entrant.index: entrant for entrant in match.entrants.all()}
    games = Game.objects.bulk_create(
        Game(
            match=match,
            index=record.index,
            deal=record.deal,
            deck_seed=record.deck_seed,
            seats=list(record.seats),
            scores=list(record.scores),
            ranks=list(record.ranks),
            forfeits=list(record.forfeits),
            timings=[timing.to_dict() for timing in record.timings],
            replay=compress_replay(record.replay),
        )
        for record in result.games
    )
    GameFailure.objects.bulk_create(
        GameFailure(
            game=game,
            match=match,
            version_id=entrants[record.seats[failure.seat]].version_id if failure.seat >= 0 else entrants[0].version_id,
            seat=failure.seat,
            kind=failure.kind,
            message=storable_text(failure.message)[:10_000],  # the bot's text: it may hold NUL
            decision=failure.decision,
            stderr_tail=storable_text(failure.stderr_tail)[-4000:],
        )
        for game, record in zip(games, result.games)
        for failure in record.failures
    )
    _record_totals(entrants, result)
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.sandbox_tier = result.tier[:32]
    match.games_played = len(result.games)
    match.entrant_summary = entrant_summary(entrants.values())
    match.failure_count = sum(len(record.failures) for record in result.games)
    match.save(
        update_fields=["status", "finished_at", "sandbox_tier", "games_played", "entrant_summary", "failure_count"]
    )
    if match.ranked:
        _health_record(match, entrants, result)
    ratings_apply_pending()
    _ended(match)
    return True


def _health_record(match: Match, entrants: dict[int, MatchEntrant], result: MatchResult) -> None:
    """A ranked match counts in each entrant's run of failing matches (docs/platform.md, "Failure
    health"): it failed in it when it forfeited a game by its own fault. A platform fault never
    counts (it stops the match before any result: match_release). A placement match ended: the
    ladder tick, sent after commit, schedules the next one without waiting for beat."""
    failing: dict[int, str] = {}
    for record in result.games:
        for failure in record.failures:
            if failure.seat >= 0 and failure.bots_fault:
                version_id = entrants[record.seats[failure.seat]].version_id
                failing.setdefault(version_id, f"{failure.kind} in game {record.index + 1}")
    clean = {entrant.version_id for entrant in entrants.values()} - set(failing)
    bot_versions_match_health_record(match_id=match.pk, failing=failing, clean=clean)
    if match.origin == Match.Origin.PLACEMENT:
        send_after_commit("tournaments.tasks.ladder_tick", what=f"the placement after match {match.pk}")


def entrant_summary(entrants: Iterable[MatchEntrant]) -> list[dict[str, Any]]:
    """What a match's row holds of its entrants (Match.entrant_summary), in index order."""
    return [
        {
            "index": entrant.index,
            "version": entrant.version_id,
            "total_score": entrant.total_score,
            "mean_rank": entrant.mean_rank,
            "wins": entrant.wins,
            "forfeits": entrant.forfeits,
        }
        for entrant in sorted(entrants, key=lambda entrant: entrant.index)
    ]


def _record_totals(entrants: dict[int, MatchEntrant], result: MatchResult) -> None:
    totals = {index: {"score": 0, "ranks": 0, "wins": 0, "forfeits": 0} for index in entrants}
    for record in result.games:
        for seat, entrant in enumerate(record.seats):
            total = totals[entrant]
            total["score"] += record.scores[seat]
            total["ranks"] += record.ranks[seat]
            total["wins"] += record.ranks[seat] == 1 and seat not in record.forfeits
            total["forfeits"] += seat in record.forfeits
    for index, entrant in entrants.items():
        entrant.total_score = totals[index]["score"]
        entrant.mean_rank = totals[index]["ranks"] / max(len(result.games), 1)
        entrant.wins = totals[index]["wins"]
        entrant.forfeits = totals[index]["forfeits"]
    MatchEntrant.objects.bulk_update(entrants.values(), ["total_score", "mean_rank", "wins", "forfeits"])


@transaction.atomic
def match_release(*, match_id: int, attempt: int, error: str) -> Match | None:
    """The platform could not run this attempt: back to queued, or failed when out of attempts."""
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.status != Match.Status.RUNNING or match.attempts != attempt:
        return None
    if match.attempts >= match.max_attempts:
        match.status = Match.Status.FAILED
        match.finished_at = timezone.now()
        match.error = storable_text(f"failed after {match.attempts} attempts; last: {error}")[:10_000]
        match.save(update_fields=["status", "finished_at", "error"])
        ratings_apply_pending()
        _ended(match)
    else:
        match.status = Match.Status.QUEUED
        match.queued_at = timezone.now()
        match.error = storable_text(error)[:10_000]
        match.save(update_fields=["status", "queued_at", "error"])
    return match


@transaction.atomic
def match_cancel(*, match: Match) -> Match:
    updated = Match.objects.filter(pk=match.pk, status__in=Match.PENDING).update(
        status=Match.Status.CANCELLED, finished_at=timezone.now()
    )
    if not updated:
        raise Conflict(f"match {match.pk} is {match.status}; only queued or running matches can be cancelled")
    ratings_apply_pending()
    match.refresh_from_db()
    _ended(match)
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
        _queue(match)
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


@transaction.atomic
def matches_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """Requeue (or fail, when out of attempts) running matches past their deadline, and send
    again queued matches and version validations whose message may have been lost. Safe to run
    at any time."""
    now = now or timezone.now()
    stuck = list(
        Match.objects.select_for_update(skip_locked=True).filter(status=Match.Status.RUNNING, deadline__lt=now)
    )
    counts = {"requeued": 0, "failed": 0, "resent": 0}
    for match in stuck:
        if match.attempts >= match.max_attempts:
            match.status = Match.Status.FAILED
            match.finished_at = now
            match.error = f"no result by the deadline after {match.attempts} attempts (last worker {match.worker})"
            match.save(update_fields=["status", "finished_at", "error"])
            _ended(match)
            counts["failed"] += 1
        else:
            match.status = Match.Status.QUEUED
            match.queued_at = now
            match.error = f"attempt {match.attempts} on {match.worker} missed its deadline"
            match.save(update_fields=["status", "queued_at", "error"])
            _queue(match)
            counts["requeued"] += 1
    resend_before = now - timedelta(seconds=settings.MATCH_RESEND_AFTER_SECONDS)
    queued = Match.objects.filter(status=Match.Status.QUEUED)
    counts["resent"] = 0
    for route in sorted(set(ROUTES.values())):
        lost = resend_lost(
            queued.filter(origin__in=[origin for origin, its in ROUTES.items() if its == route]),
            sent_at="queued_at",
            before=resend_before,
            now=now,
            send_one=functools.partial(_send, queue=route[0], priority=route[1]),
        )
        counts["resent"] += len(lost)
    counts["validations_resent"] = bot_validations_resend(now=now)
    if counts["failed"]:
        ratings_apply_pending()
    return counts
