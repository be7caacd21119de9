"""Tasks sent to the workers after the transaction that made their row commits.

The row is the truth, the message only a wake-up: a broker that cannot take the message (Redis
down or unreachable) must not turn a committed write into an error for the user. The failure is
logged and the sweepers send the message again later: ``matches_sweep`` for queued matches and
validations (both through ``resend_lost``), ``tournaments_tick`` for tournaments (both on beat's
schedule).
"""

from __future__ import annotations

import ast
import base64
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

import orjson
from celery import Celery
from django.db import transaction
from django.db.models import QuerySet

logger = logging.getLogger(__name__)

# The queues, by how soon their work is awaited (docs/platform.md, "Queues"). A worker started on
# several queues takes from them in this order under Redis (queue_order_strategy "priority").
INTERACTIVE = "interactive"  # someone waits: validations, requested test matches
BULK = "bulk"  # nobody waits: ladder and tournament matches
HOUSEKEEPING = "housekeeping"  # short and periodic: ladder tick, sweeper, rating writer, tournaments
# Calls to someone else's server made for a user (notifications: webhooks and mail): however slowly
# they answer, they hold only the processes of this queue's worker, never the platform's upkeep.
OUTBOUND = "outbound"
QUEUES = (INTERACTIVE, BULK, HOUSEKEEPING, OUTBOUND)

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
# its processes is free, the housekeeping worker runs the periodic tasks whatever the matches do,
# and the outbound worker talks to the users' servers whatever they do.
WORKER_QUEUES = {
    INTERACTIVE: (INTERACTIVE,),
    BULK: (INTERACTIVE, BULK),
    HOUSEKEEPING: (HOUSEKEEPING,),
    OUTBOUND: (OUTBOUND,),
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
    rows: QuerySet[Any],
    *,
    sent_at: str,
    before: datetime,
    now: datetime,
    send_one: Callable[[int], None],
    task: str | None = None,
    queues: Iterable[str] = (),
) -> list[int]:
    """Send again the message of each of ``rows`` whose ``sent_at`` is older than ``before`` and
    that the broker no longer holds: it was lost (the broker was down when it was sent, or a
    worker dropped it). With ``task`` (its name) and ``queues``, the broker is asked first
    (messages_waiting): a message still waiting in a long queue, or held by a worker, is not sent
    twice, so a backlog does not grow each time the sweeper passes; when the broker cannot be read
    so, every such row is sent again, as without ``task``. ``sent_at`` becomes ``now`` for those
    sent and ``send_one`` is called with each row's pk (it sends after commit). Rows another
    transaction holds locked are passed over (it is handling them). Returns the pks sent, in the
    order read. Call it inside a transaction (the rows stay locked until it ends)."""
    lost = list(
        rows.select_for_update(skip_locked=True).filter(**{f"{sent_at}__lt": before}).values_list("pk", flat=True)
    )
    if lost and task is not None:
        waiting = messages_waiting(task, queues)
        if waiting is not None:
            lost = [pk for pk in lost if pk not in waiting]
    if lost:
        rows.model.objects.filter(pk__in=lost).update(**{sent_at: now})
        for pk in lost:
            send_one(pk)
    return lost


# --- What the broker holds --------------------------------------------------------------------

# Messages are read from Redis this many at a time.
SCAN_PAGE = 500


def messages_waiting(task: str, queues: Iterable[str], *, app: Celery | None = None) -> set[Any] | None:
    """The first argument (a row's id) of every message of ``task`` the broker holds for
    ``queues``: waiting in them, at any priority, and (Redis) delivered to a worker that has not
    acknowledged it yet (a task it is running, or one it keeps for a countdown). None when the
    broker cannot be read so (it did not answer, or a transport this does not know)."""
    if app is None:
        from lineit_platform.celery import app as platform_app

        app = platform_app
    found: set[Any] = set()
    try:
        with app.connection_for_read() as connection:
            channel = connection.default_channel
            if connection.transport.driver_type == "redis":
                raw = _redis_messages(channel, list(queues))
            elif connection.transport.driver_type == "filesystem":
                raw = _folder_messages(channel, list(queues))
            else:
                return None
            for message in raw:
                argument = _first_argument(message, task)
                if argument is not None:
                    found.add(argument)
    except Exception as error:  # kombu's OperationalError, a socket error, an unreadable file
        logger.warning("could not read the broker's messages (%s: %s)", type(error).__name__, error)
        return None
    return found


def _redis_messages(channel: Any, queues: list[str]) -> Iterator[bytes]:
    client = channel.client
    for queue in queues:
        for priority in channel.priority_steps:
            key = channel._q_for_pri(queue, priority)
            start = 0
            while page := client.lrange(key, start, start + SCAN_PAGE - 1):
                yield from page
                start += SCAN_PAGE
    cursor = 0
    while True:  # delivered, not yet acknowledged: [message, exchange, routing key], any queue
        cursor, held = client.hscan(channel.unacked_key, cursor, count=SCAN_PAGE)
        for value in held.values():
            delivered = orjson.loads(value)
            if len(delivered) == 3 and delivered[2] in queues:
                yield orjson.dumps(delivered[0])
        if not cursor:
            break


def _folder_messages(channel: Any, queues: list[str]) -> Iterator[bytes]:
    folder = channel.data_folder_out
    suffixes = tuple(f".{queue}.msg" for queue in queues)
    for name in os.listdir(folder):
        if name.endswith(suffixes):
            try:
                with open(os.path.join(folder, name), "rb") as handle:
                    yield handle.read()
            except FileNotFoundError:  # taken by a worker meanwhile
                continue


def _first_argument(raw: bytes, task: str) -> Any:
    """The first argument of a Celery message (protocol 2) of ``task``; None for another task."""
    message = orjson.loads(raw)
    headers = message.get("headers") or {}
    if headers.get("task") != task:
        return None
    try:  # the arguments' repr, in the headers: no need to decode the body
        arguments = ast.literal_eval(str(headers.get("argsrepr")))
    except (ValueError, SyntaxError):
        body = message.get("body", "")
        if (message.get("properties") or {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        arguments = orjson.loads(body)[0]
    if isinstance(arguments, list | tuple) and arguments:
        return arguments[0]
    return None
