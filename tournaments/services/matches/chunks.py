"""A match is played in chunks (docs/platform.md, "Chunks"): ``match_claim`` (states.py) cuts it
into MatchChunk rows of whole deals; any worker then claims a chunk (``chunk_claim``, one worker's
at a time, under a lease), plays it (execution.py) and records its games on the chunk's row
(``chunk_record``) or gives it back (``chunk_release``). When the last chunk is in, the games one
process would have played are the match's result (results.py: match_finish); where a chunk played
a bot that one process would have stopped by then, the games from there are played again with
that bot stopped (the re-plan).
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from lineit.botkit.limits import Limits
from lineit.botkit.referee import GameRecord, MatchResult
from lineit.botkit.stops import StopTracker, whole_deal_parts
from lineit.botkit.untrusted import storable_text
from lineit_platform.errors import ApplicationError
from lineit_platform.workers import worker_gone

from ...models import LiveGame, Match, MatchChunk
from .results import match_finish
from .states import games_recorded, match_deadline, match_enqueue, match_fail, match_release_locked, match_spec

logger = logging.getLogger(__name__)


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
        if chunk.status == MatchChunk.Status.QUEUED or chunk.deadline < now or worker_gone(chunk.worker):
            break
    else:
        return None
    if chunk.attempts >= match.max_attempts:
        match_fail(
            match=match,
            error=f"games {chunk.first + 1}-{chunk.stop} failed {chunk.attempts} times; last: {chunk.error}",
        )
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


@transaction.atomic
def chunk_record(*, chunk_id: int, attempt: int, result: MatchResult) -> bool:
    """Keep the games of one attempt of a chunk; once every chunk is in, record the match
    (match_finish, in this transaction). Idempotent: a second delivery, or a stale
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
        played = games_recorded(match.chunks.all())
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
    match_finish(
        match=match,
        result=MatchResult(
            spec=match_spec(match), names=names, tier=tier, limits=Limits.from_dict(match.limits), games=games
        ),
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
        match_enqueue(match)


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
        match_fail(match=match, error=f"failed after {chunk.attempts} attempts; last: {error}")
        return match
    if not match.chunks.filter(status=MatchChunk.Status.RUNNING).exists():
        return match_release_locked(match=match, error=error)
    return match
