"""The match state machine: schedule, claim, run, record, release, cancel, requeue, sweep."""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import secrets
import socket
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Q, QuerySet, Sum
from django.db.models.functions import Least
from django.utils import timezone

from bots.models import BotVersion
from bots.runner import sandbox_match_run
from bots.services import bot_validations_resend, bot_versions_match_health_record
from lineit.botkit.limits import Limits
from lineit.botkit.referee import GameRecord, MatchResult, PlatformFailure
from lineit.botkit.schedule import MatchSpec, longest_seconds
from lineit.botkit.stops import StopTracker, whole_deal_parts
from lineit.botkit.untrusted import storable_text
from lineit.engine import RULES_VERSION
from lineit_platform.errors import ApplicationError, Conflict
from lineit_platform.metrics import record_match_ended
from lineit_platform.queueing import BULK, INTERACTIVE, LATER, SOON, WAITED_FOR, resend_lost, send_after_commit
from tournaments.signals import match_ended

from ..models import Game, GameFailure, LiveGame, Match, MatchChunk, MatchEntrant, compress_replay
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
    MatchChunk.objects.filter(match_id=match.pk).exclude(result=None).update(result=None)
    if match.origin == Match.Origin.SPRT:  # its test folds it in, or tries it again (services/sprt.py)
        send_after_commit("tournaments.tasks.sprt_match_ended_task", match.pk, what=f"the SPRT of match {match.pk}")
    if match.tournament_id is not None:
        tournament = match.tournament_id
        send_after_commit(
            "tournaments.tasks.tournament_advance_task", tournament, what=f"the advance of tournament {tournament}"
        )
    match_ended.send(sender=Match, match=match)  # a requested test match tells who asked (notifications)
    # The operator's metrics count it once, whoever ended it (a worker, the sweeper, a cancel).
    transaction.on_commit(functools.partial(record_match_ended, match.pk), robust=True)


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
    played = _games_recorded(chunks)
    if played:
        Match.objects.filter(pk=match_id).update(games_played=played)
        match.games_played = played
    return match


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
    """Claim the match (or join it, when it is running healthily elsewhere), then play its chunks
    one after another, each claimed, run in the sandbox and recorded as it ends, until none is
    left to take. The claim sends one message more for each other chunk, so idle workers join.
    Platform failures release the chunk and propagate, so the task retries; a bot's failures
    are part of the result. A dropped database connection is reconnected (_database_retried)."""
    claimed = _database_retried(match_claim, match_id=match_id, worker=worker)
    match = claimed or Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).first()
    if match is None:
        return None
    if claimed is not None:
        waiting = MatchChunk.objects.filter(match_id=match_id, status=MatchChunk.Status.QUEUED).count()
        for _ in range(waiting - 1):
            _queue(match)
    entrants = list(match.entrants.select_related("version__bot").order_by("index"))
    limits = Limits.from_dict(match.limits)
    began = time.monotonic()
    allowed = settings.MATCH_TIME_LIMIT_SECONDS - settings.MATCH_SOFT_MARGIN_SECONDS
    played = 0
    while (chunk := _database_retried(chunk_claim, match_id=match_id, worker=worker)) is not None:
        used = time.monotonic() - began
        if played and used + longest_seconds(match.num_players, chunk.games, limits) > allowed:
            # This task could be stopped by its time limit in this chunk: a new task plays it (a
            # first chunk always fits: the whole match does, match_duration_check).
            _database_retried(chunk_release, chunk_id=chunk.pk, attempt=chunk.attempts, error="", retry=True)
            _queue(match)
            break
        progress = _Progress(match.pk, match.attempts, chunk=chunk)
        try:
            result = sandbox_match_run(
                spec=dataclasses.replace(match_spec(match), shard=range(chunk.first, chunk.stop)),
                # the code, from the worker's cache (checked by its hash) or the storage: a copy
                # that cannot be had is a platform failure, which gives the chunk back
                sources=[entrant.version.source() for entrant in entrants],
                limits=limits,
                on_game=progress,
                stopped=frozenset(chunk.stopped),
            )
        except Superseded as error:
            logger.info("%s: another attempt has them; this one stops", error)
            continue
        except BaseException as error:
            if isinstance(error, PlatformFailure) and error.detail:
                logger.warning("match %s: %s; sandbox output: %s", match.pk, error, error.detail[-2000:])
            _database_retried(
                chunk_release, chunk_id=chunk.pk, attempt=chunk.attempts, error=f"{type(error).__name__}: {error}"
            )
            raise
        _database_retried(chunk_record, chunk_id=chunk.pk, attempt=chunk.attempts, result=result)
        played += 1
    match.refresh_from_db()
    return match


_Result = TypeVar("_Result")


def _database_retried(call: Callable[..., _Result], **kwargs: Any) -> _Result:
    """``call(**kwargs)``, again on a new connection while the database cannot be reached, for
    up to MATCH_DATABASE_RETRY_SECONDS: a worker whose connection dropped (a database restart, a
    fail-over) records the games it played instead of losing them. Each call is one transaction
    that checks its attempt first, so running it twice changes nothing more. Inside a caller's
    transaction (tests) it is not retried: that transaction is lost with the connection."""
    deadline = time.monotonic() + settings.MATCH_DATABASE_RETRY_SECONDS
    pause = 0.2
    while True:
        try:
            return call(**kwargs)
        except (OperationalError, InterfaceError) as error:
            if connection.in_atomic_block or time.monotonic() + pause > deadline:
                raise
            logger.warning("%s: the database did not answer (%s); trying again in %.1f s", call.__name__, error, pause)
            connection.close()
            time.sleep(pause)
            pause = min(pause * 2, 5.0)


@functools.cache
def _process_space() -> str:
    """Which processes a pid names here: this boot of this kernel and this PID namespace. Two
    containers (or cloned hosts) may share a host name, never all three."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()[:8]
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return ""
    return f"{boot}-{namespace}"


def worker_name(node: str | None) -> str:
    """This worker process's name on its match and chunk rows: ``node:space:pid`` (its Celery node
    name, _process_space, its pid), from which _worker_gone can tell a dead process of this host."""
    return f"{node or socket.gethostname()}:{_process_space()}:{os.getpid()}"


def _worker_gone(worker: str) -> bool:
    """Whether the worker process named ``worker`` (worker_name) is known to be dead: it ran in
    this process space (this boot, this PID namespace) and its process is gone. A worker
    elsewhere is gone only when its lease runs out."""
    rest, _, pid = worker.rpartition(":")
    _, _, space = rest.rpartition(":")
    if not pid.isdigit() or not space or space != _process_space():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


@transaction.atomic
def chunk_claim(*, match_id: int, worker: str) -> MatchChunk | None:
    """The first chunk of a running match that no worker is playing (queued, or its worker missed
    its deadline or is known to be dead), claimed for ``worker``; None when there is none. A
    chunk that was tried MATCH_MAX_ATTEMPTS times fails its match."""
    match = Match.objects.select_for_update().filter(pk=match_id, status=Match.Status.RUNNING).first()
    if match is None:
        return None
    now = timezone.now()
    unfinished = list(match.chunks.exclude(status=MatchChunk.Status.FINISHED).order_by("first"))
    for chunk in unfinished:
        if chunk.status == MatchChunk.Status.RUNNING and chunk.worker == worker[:200]:
            # this worker's already: a claim whose commit was not confirmed, tried again
            MatchChunk.objects.filter(pk=chunk.pk).update(deadline=match_deadline(now))
            return chunk
    for chunk in unfinished:
        if chunk.status == MatchChunk.Status.QUEUED or chunk.deadline < now or _worker_gone(chunk.worker):
            break
    else:
        return None
    if chunk.attempts >= match.max_attempts:
        _match_fail(match, f"games {chunk.first + 1}-{chunk.stop} failed {chunk.attempts} times; last: {chunk.error}")
        return None
    if chunk.status == MatchChunk.Status.RUNNING:
        chunk.error = f"attempt {chunk.attempts} on {chunk.worker} stopped"
    chunk.status = MatchChunk.Status.RUNNING
    chunk.attempts += 1
    chunk.worker = worker[:200]
    chunk.started_at = now
    chunk.deadline = match_deadline(now)
    chunk.save(update_fields=["status", "attempts", "worker", "started_at", "deadline", "error"])
    LiveGame.objects.filter(match_id=match_id, index__gte=chunk.first, index__lt=chunk.stop).delete()
    Match.objects.filter(pk=match_id).update(deadline=chunk.deadline)
    return chunk


def _chunk_blob(tier: str, records: Iterable[GameRecord]) -> bytes:
    """What a chunk row keeps of its games until the match is recorded (_chunk_games reads it)."""
    document = {"tier": tier, "games": [record.to_dict() for record in records]}
    return zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 6)


def _chunk_games(blob: bytes) -> tuple[str, list[GameRecord]]:
    data = json.loads(zlib.decompress(bytes(blob)))
    return data["tier"], [GameRecord.from_dict(game) for game in data["games"]]


def _games_recorded(chunks: QuerySet[MatchChunk]) -> int:
    """The games of the finished ones among ``chunks`` (a match's)."""
    finished = chunks.filter(status=MatchChunk.Status.FINISHED)
    return finished.aggregate(games=Sum(F("stop") - F("first")))["games"] or 0


@transaction.atomic
def chunk_record(*, chunk_id: int, attempt: int, result: MatchResult) -> bool:
    """Keep the games of one attempt of a chunk; once every chunk is in, record the match
    (match_record_result's work, in this transaction). Idempotent: a second delivery, or a stale
    attempt (the chunk was claimed again, the match was requeued, cancelled or re-planned),
    records nothing and returns False."""
    match_id = MatchChunk.objects.filter(pk=chunk_id).values_list("match_id", flat=True).first()
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    chunk = MatchChunk.objects.select_for_update().filter(pk=chunk_id).first()
    if match is None or chunk is None:
        return False
    if match.status != Match.Status.RUNNING or chunk.status != MatchChunk.Status.RUNNING or chunk.attempts != attempt:
        logger.info("chunk %s of match %s: attempt %s ignored (%s)", chunk_id, match.pk, attempt, chunk.status)
        return False
    if [record.index for record in result.games] != list(range(chunk.first, chunk.stop)):
        raise ApplicationError(
            f"chunk {chunk_id}: games {[r.index for r in result.games]}, {chunk.first}-{chunk.stop - 1} expected"
        )
    chunk.result = _chunk_blob(result.tier, result.games)
    chunk.status = MatchChunk.Status.FINISHED
    chunk.finished_at = timezone.now()
    chunk.save(update_fields=["result", "status", "finished_at"])
    if match.chunks.exclude(status=MatchChunk.Status.FINISHED).exists():
        played = _games_recorded(match.chunks.all())
        Match.objects.filter(pk=match.pk).update(games_played=played, deadline=match_deadline(timezone.now()))
        return True
    _match_complete(match)
    return True


def _match_complete(match: Match) -> None:
    """Every chunk is in: the games one process would have played are recorded as the match's
    result. Where a chunk played a bot that one process would have stopped by then (its failures
    are counted from the chunk's first game: lineit/botkit/stops.py), the games from there are
    played again by new chunks with that bot stopped, and the match goes on."""
    chunks = list(match.chunks.order_by("first"))
    tracker = StopTracker(match.num_players, Limits.from_dict(match.limits).max_failures)
    games: list[GameRecord] = []
    tiers: list[str] = []
    for position, chunk in enumerate(chunks):
        tier, records = _chunk_games(chunk.result)
        tiers.append(tier)
        for record in records:
            if not tracker.accept(record):
                _match_replan(
                    match, chunks[position:], kept=[r for r in records if r.index < record.index], due=tracker.due
                )
                return
            games.append(record)
    names = [entrant.version.label for entrant in match.entrants.select_related("version__bot").order_by("index")]
    tier = tiers[0] if len(set(tiers)) == 1 else "+".join(sorted(set(tiers)))
    _record_whole(
        match,
        MatchResult(spec=match_spec(match), names=names, tier=tier, limits=Limits.from_dict(match.limits), games=games),
    )


def _match_replan(match: Match, later: list[MatchChunk], *, kept: list[GameRecord], due: frozenset[int]) -> None:
    """Play again from the first game of ``later[0]`` not kept, with the entrants ``due`` stopped."""
    chunk, *after = later
    start = chunk.first + len(kept)
    if kept:
        tier, _ = _chunk_games(chunk.result)
        chunk.result = _chunk_blob(tier, kept)
        chunk.stop = start
        chunk.save(update_fields=["result", "stop"])
    else:
        after = later
    MatchChunk.objects.filter(pk__in=[c.pk for c in after]).delete()
    LiveGame.objects.filter(match_id=match.pk, index__gte=start).delete()
    number = (match.chunks.order_by("-index").values_list("index", flat=True).first() or 0) + 1
    deal = match.num_players if match.duplicate_deals else 1
    parts = whole_deal_parts(match.games, start, settings.MATCH_CHUNK_GAMES, deal)
    MatchChunk.objects.bulk_create(
        MatchChunk(match_id=match.pk, index=number + offset, first=part.start, stop=part.stop, stopped=sorted(due))
        for offset, part in enumerate(parts)
    )
    logger.info("match %s: games from %s played again with entrants %s stopped", match.pk, start + 1, sorted(due))
    Match.objects.filter(pk=match.pk).update(games_played=start, deadline=match_deadline(timezone.now()))
    for _ in parts:
        _queue(match)


@transaction.atomic
def chunk_release(*, chunk_id: int, attempt: int, error: str, retry: bool = False) -> Match | None:
    """The platform could not play this attempt of a chunk: the chunk goes back to be claimed
    again (by the task's retry, or a worker playing another chunk of the match). With no other
    chunk playing, the match goes back to the queue (match_release); a chunk tried
    MATCH_MAX_ATTEMPTS times fails the match. With ``retry`` the attempt did not start (its
    task had too little time left): it is given back, not counted."""
    match_id = MatchChunk.objects.filter(pk=chunk_id).values_list("match_id", flat=True).first()
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    chunk = MatchChunk.objects.select_for_update().filter(pk=chunk_id).first()
    if match is None or chunk is None:
        return None
    if match.status != Match.Status.RUNNING or chunk.status != MatchChunk.Status.RUNNING or chunk.attempts != attempt:
        return None
    chunk.status = MatchChunk.Status.QUEUED
    if retry:
        chunk.attempts -= 1
        chunk.save(update_fields=["status", "attempts"])
        return match
    chunk.error = storable_text(error)[:10_000]
    chunk.save(update_fields=["status", "error"])
    if chunk.attempts >= match.max_attempts:
        _match_fail(match, f"failed after {chunk.attempts} attempts; last: {error}")
        return match
    if not match.chunks.filter(status=MatchChunk.Status.RUNNING).exists():
        return _match_release(match, error)
    return match


class Superseded(Exception):
    """The chunk being played is no longer this attempt's (claimed again elsewhere, its match
    requeued, cancelled or re-planned): playing on would be for nothing."""


class _Progress:
    """Counts games as they finish and renews the leases (the chunk's, when given, and the
    match's), writing at most every tenth of a lease (progress only: results are written when
    a chunk ends). A database that does not answer loses a live game, never the chunk. A chunk
    found to be another attempt's when its lease is renewed stops the play (Superseded)."""

    def __init__(self, match_id: int, attempt: int, *, chunk: MatchChunk | None = None) -> None:
        self.match_id = match_id
        self.attempt = attempt
        self.chunk = chunk
        self.played = 0
        self.written = time.monotonic()
        self.every = settings.MATCH_LEASE_SECONDS / 10

    def __call__(self, record: GameRecord) -> None:
        self.played += 1
        try:
            self._write(record)
        except Superseded:
            raise
        except DatabaseError as error:
            logger.warning("match %s: progress not written (%s)", self.match_id, error)
            if not connection.in_atomic_block:
                connection.close()  # the next write, or the record, connects again

    def _write(self, record: GameRecord) -> None:
        # The game, to be watched at once: one row, in its own transaction (a stale attempt's
        # rows are never shown, and are removed when its chunk is claimed again or the match ends).
        if self.chunk is not None:  # a row of an earlier attempt of this game (one that went on) gives way
            LiveGame.objects.filter(match_id=self.match_id, index=record.index).exclude(attempt=self.attempt).delete()
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
            deadline = match_deadline(timezone.now())
            if self.chunk is not None:
                mine = MatchChunk.objects.filter(
                    pk=self.chunk.pk,
                    status=MatchChunk.Status.RUNNING,
                    attempts=self.chunk.attempts,
                    worker=self.chunk.worker,
                    match__status=Match.Status.RUNNING,
                )
                if not mine.update(deadline=deadline):
                    raise Superseded(f"games {self.chunk.first + 1}-{self.chunk.stop} of match {self.match_id}")
            played = LiveGame.objects.filter(match_id=self.match_id).count()
            Match.objects.filter(pk=self.match_id, status=Match.Status.RUNNING).update(
                games_played=max(played, self.played), deadline=deadline
            )


@transaction.atomic
def match_record_result(*, match_id: int, attempt: int, result: MatchResult) -> bool:
    """Record the whole result of one attempt of a match at once (a match played in one piece,
    not by chunks: tests, tools). Idempotent: a second delivery, or a stale attempt whose match
    was requeued, records nothing and returns False."""
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.status != Match.Status.RUNNING or match.attempts != attempt:
        logger.info(
            "match %s: result of attempt %s ignored (%s, attempt %s)", match_id, attempt, match.status, match.attempts
        )
        return False
    if len(result.games) != match.games:
        raise ApplicationError(f"match {match_id}: {len(result.games)} games in the result, {match.games} expected")
    MatchChunk.objects.filter(match_id=match_id).delete()  # played in one piece: its chunks mean nothing
    _record_whole(match, result)
    return True


def _record_whole(match: Match, result: MatchResult) -> None:
    """Write every game, failure and total, finish the match and apply ratings, in the caller's
    transaction (with the match locked): the one place a match's result is recorded."""
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
    return _match_release(match, error)


def _match_release(match: Match, error: str) -> Match:
    if match.attempts >= match.max_attempts:
        _match_fail(match, f"failed after {match.attempts} attempts; last: {error}")
    else:
        match.status = Match.Status.QUEUED
        match.queued_at = timezone.now()
        match.error = storable_text(error)[:10_000]
        match.save(update_fields=["status", "queued_at", "error"])
    return match


def _match_fail(match: Match, error: str) -> None:
    """The platform gave up on the match (it is locked by the caller)."""
    match.status = Match.Status.FAILED
    match.finished_at = timezone.now()
    match.error = storable_text(error)[:10_000]
    match.save(update_fields=["status", "finished_at", "error"])
    ratings_apply_pending()
    _ended(match)


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
        # and each chunk not recorded one more try (a chunk out of attempts would fail it at once)
        match.chunks.exclude(status=MatchChunk.Status.FINISHED).update(
            status=MatchChunk.Status.QUEUED, attempts=Least(F("attempts"), match.max_attempts - 1)
        )
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
    # A chunk whose worker missed its deadline in a match that other workers keep alive: one
    # message more for the match, whose worker claims the chunk again (chunk_claim).
    orphaned = (
        MatchChunk.objects.filter(
            status=MatchChunk.Status.RUNNING, deadline__lt=now, match__status=Match.Status.RUNNING
        )
        .exclude(match__in=[match.pk for match in stuck])
        .values_list("match_id", flat=True)
        .distinct()
    )
    counts["chunks_resent"] = 0
    for match in Match.objects.filter(pk__in=list(orphaned)):
        _queue(match)
        counts["chunks_resent"] += 1
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
