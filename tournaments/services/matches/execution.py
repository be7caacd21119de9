"""A worker plays a match: ``match_execute`` claims it (or joins it) and plays its chunks one after
another, each in the sandbox, until none is left to take; ``Progress`` writes each game as it ends
(a LiveGame row, watchable at once) and renews the leases, and stops a chunk that another attempt
has taken (``Superseded``).
"""

from __future__ import annotations

import dataclasses
import logging
import time

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone

from bots.code_cache import version_source
from bots.runner import sandbox_match_run
from lineit.botkit.limits import Limits
from lineit.botkit.referee import GameRecord, PlatformFailure
from lineit.botkit.schedule import longest_seconds
from lineit_platform.workers import database_retried

from ...models import LiveGame, Match, MatchChunk, compress_replay
from .chunks import chunk_claim, chunk_record, chunk_release
from .states import match_claim, match_deadline, match_enqueue, match_spec

logger = logging.getLogger(__name__)


def match_execute(*, match_id: int, worker: str) -> Match | None:
    """Claim the match (or join it, when it is running healthily elsewhere), then play its chunks
    one after another, each claimed, run in the sandbox and recorded as it ends, until none is
    left to take. The claim sends one message more for each other chunk, so idle workers join.
    Platform failures release the chunk and propagate, so the task retries; a bot's failures
    are part of the result. A dropped database connection is reconnected
    (lineit_platform/workers.py: database_retried)."""
    claimed = database_retried(match_claim, match_id=match_id, worker=worker)
    match = claimed or Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).first()
    if match is None:
        return None
    if claimed is not None:
        waiting = MatchChunk.objects.filter(match_id=match_id, status=MatchChunk.Status.QUEUED).count()
        for _ in range(waiting - 1):
            match_enqueue(match)
    entrants = list(match.entrants.select_related("version__bot").order_by("index"))
    limits = Limits.from_dict(match.limits)
    began = time.monotonic()
    allowed = settings.MATCH_TIME_LIMIT_SECONDS - settings.MATCH_SOFT_MARGIN_SECONDS
    played = 0
    while (chunk := database_retried(chunk_claim, match_id=match_id, worker=worker)) is not None:
        used = time.monotonic() - began
        if played and used + longest_seconds(match.num_players, chunk.games, limits) > allowed:
            # This task could be stopped by its time limit in this chunk: a new task plays it (a
            # first chunk always fits: the whole match does, match_duration_check).
            database_retried(chunk_release, chunk_id=chunk.pk, attempt=chunk.attempts, error="", retry=True)
            match_enqueue(match)
            break
        progress = Progress(match.pk, match.attempts, chunk=chunk)
        try:
            result = sandbox_match_run(
                spec=dataclasses.replace(match_spec(match), shard=range(chunk.first, chunk.stop)),
                # the code, from the worker's cache (checked by its hash) or the storage: a copy
                # that cannot be had is a platform failure, which gives the chunk back
                sources=[version_source(entrant.version) for entrant in entrants],
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
            database_retried(
                chunk_release, chunk_id=chunk.pk, attempt=chunk.attempts, error=f"{type(error).__name__}: {error}"
            )
            raise
        database_retried(chunk_record, chunk_id=chunk.pk, attempt=chunk.attempts, result=result)
        played += 1
    match.refresh_from_db()
    return match


class Superseded(Exception):
    """The chunk being played is no longer this attempt's (claimed again elsewhere, its match
    requeued, cancelled or re-planned): playing on would be for nothing."""


class Progress:
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
