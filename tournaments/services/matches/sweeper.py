"""The sweeper (beat's ``matches_sweep`` task): what a lost worker or a lost message left behind.

Running matches past their deadline go back to the queue (or fail when out of attempts); a chunk
whose worker is gone in a match others keep alive gets one message more; queued matches and
version validations whose message was lost are sent again (the broker is asked first: one still
waiting in a queue is not sent twice).
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bots.services import bot_validations_resend
from lineit_platform.queueing import resend_lost

from ...models import Match, MatchChunk
from ..ratings import ratings_apply_pending
from .after import match_ended
from .states import MATCH_TASK, ROUTES, match_enqueue, match_send


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
            match_ended(match)
            counts["failed"] += 1
        else:
            match.status = Match.Status.QUEUED
            match.queued_at = now
            match.error = f"attempt {match.attempts} on {match.worker} missed its deadline"
            match.save(update_fields=["status", "queued_at", "error"])
            match_enqueue(match)
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
        match_enqueue(match)
        counts["chunks_resent"] += 1
    resend_before = now - timedelta(seconds=settings.MATCH_RESEND_AFTER_SECONDS)
    queued = Match.objects.filter(status=Match.Status.QUEUED)
    counts["resent"] = 0
    for route in sorted(set(ROUTES.values())):
        # Only a message the broker lost is sent again: one still waiting behind a backlog is not
        # (before, each pass sent the whole backlog once more: 30 matches, 62 -> 122 messages).
        lost = resend_lost(
            queued.filter(origin__in=[origin for origin, its in ROUTES.items() if its == route]),
            sent_at="queued_at",
            before=resend_before,
            now=now,
            send_one=functools.partial(match_send, queue=route[0], priority=route[1]),
            task=MATCH_TASK,
            queues=sorted({queue for queue, _ in ROUTES.values()}),
        )
        counts["resent"] += len(lost)
    counts["validations_resent"] = bot_validations_resend(now=now)
    if counts["failed"]:
        ratings_apply_pending()
    return counts
