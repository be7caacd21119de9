"""Tasks sent to the workers after the transaction that made their row commits.

The row is the truth, the message only a wake-up: a broker that cannot take the message (Redis
down or unreachable) must not turn a committed write into an error for the user. The failure is
logged and the sweepers send the message again later: ``matches_sweep`` for queued matches and
validations (both through ``resend_lost``), ``tournaments_tick`` for tournaments (both on beat's
schedule).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from celery import Celery
from django.db import transaction
from django.db.models import QuerySet

logger = logging.getLogger(__name__)

# The queues, by how soon their work is awaited (docs/platform.md, "Queues"). A worker started on
# several queues takes from them in this order under Redis (queue_order_strategy "priority").
INTERACTIVE = "interactive"  # someone waits: validations, requested test matches
BULK = "bulk"  # nobody waits: ladder and tournament matches
HOUSEKEEPING = "housekeeping"  # short and periodic: ladder tick, sweeper, rating writer, tournaments
QUEUES = (INTERACTIVE, BULK, HOUSEKEEPING)

# Priorities within and across the queues, under Redis (lower first: kombu's Redis transport
# reads a queue's priority 0 before its 3 before its 9, and a worker on several queues reads
# every queue's 0 before any queue's 3). Validations and requested test matches go first,
# placement and SPRT games next, then the ladder and tournaments; the embedded filesystem broker
# ignores them.
WAITED_FOR = 0
SOON = 3
LATER = 9

# The workers a platform runs (runplatform, docker-compose), each named after what it serves and
# given its queues in the order it serves them: the interactive worker keeps capacity free for
# the work someone waits for, the bulk worker also takes interactive work first whenever one of
# its processes is free, and the housekeeping worker runs the periodic tasks whatever the matches do.
WORKER_QUEUES = {
    INTERACTIVE: (INTERACTIVE,),
    BULK: (INTERACTIVE, BULK),
    HOUSEKEEPING: (HOUSEKEEPING,),
}


def send(
    task: str,
    *args: Any,
    what: str,
    queue: str | None = None,
    priority: int | None = None,
    app: Celery | None = None,
) -> bool:
    """Send the task named ``task`` (``tournaments.tasks.match_run_task``) with ``args`` now; False
    (logged) when the broker did not take it. By name, so that services import no task module
    (tasks import services: one way). ``queue``: one of QUEUES, or the task's route in
    CELERY_TASK_ROUTES when None; ``priority``: WAITED_FOR, SOON or LATER (None: the route's).
    ``app``: the platform's Celery app unless given."""
    if app is None:
        from lineit_platform.celery import app as platform_app

        app = platform_app
    try:
        app.send_task(task, args=args, queue=queue, priority=priority)
    except Exception as error:  # kombu's OperationalError, a socket error, a full disk...
        logger.warning(
            "could not send %s to the workers (%s: %s); the sweeper sends it again", what, type(error).__name__, error
        )
        return False
    return True


def send_after_commit(
    task: str,
    *args: Any,
    what: str,
    queue: str | None = None,
    priority: int | None = None,
    app: Celery | None = None,
) -> None:
    """send() once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send(task, *args, what=what, queue=queue, priority=priority, app=app))


def resend_lost(
    rows: QuerySet[Any], *, sent_at: str, before: datetime, now: datetime, send_one: Callable[[int], None]
) -> list[int]:
    """Send again the message of each of ``rows`` whose ``sent_at`` is older than ``before`` (it
    was lost: the broker was down when it was sent, or a worker dropped it): ``sent_at`` becomes
    ``now`` and ``send_one`` is called with each row's pk (it sends after commit). Rows another
    transaction holds locked are passed over (it is handling them). Returns the pks, in the
    order read. Call it inside a transaction (the rows stay locked until it ends)."""
    lost = list(
        rows.select_for_update(skip_locked=True).filter(**{f"{sent_at}__lt": before}).values_list("pk", flat=True)
    )
    if lost:
        rows.model.objects.filter(pk__in=lost).update(**{sent_at: now})
        for pk in lost:
            send_one(pk)
    return lost
