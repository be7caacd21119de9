"""Celery tasks of notifications: thin, ids in (CELERY_TASK_ROUTES, docs/platform.md "Queues").

``notification_event_task`` turns an event (sent after the commit of what happened) into
notifications, ``notification_send_task`` does so for one message (services.notify): reads and
writes of the platform's own, on the housekeeping queue. ``notification_deliver_task`` talks to a
user's server, so it is on the outbound queue, served by a worker of its own: no receiver, however
slow, holds the platform's upkeep. It makes one attempt at delivering one, when it is its user's turn
(delivery.py), trying again with exponential backoff (the delay the service computes and stores as
the notification's next_attempt_at) until it is sent or given up after NOTIFICATION_MAX_ATTEMPTS
attempts. Its soft time limit (NOTIFICATION_TIME_LIMIT_SECONDS) is a backstop behind the
channels' own deadlines: the attempt it stops is recorded and tried again like any failed one.
``notifications_sweep_task`` (housekeeping, beat) takes up what stopped attempts and lost messages
left pending.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from lineit_platform.queueing import OUTBOUND, send

EVENT_OPTIONS: dict[str, Any] = {"acks_late": True, "time_limit": 120, "soft_time_limit": 100}
DELIVER_OPTIONS: dict[str, Any] = {
    "bind": True,
    "acks_late": True,
    "reject_on_worker_lost": True,
    "soft_time_limit": settings.NOTIFICATION_TIME_LIMIT_SECONDS,
    "time_limit": settings.NOTIFICATION_HARD_TIME_LIMIT_SECONDS,
    "max_retries": settings.NOTIFICATION_MAX_ATTEMPTS,
}
SWEEP_OPTIONS: dict[str, Any] = {"acks_late": True, "time_limit": 120, "soft_time_limit": 100}


def _event(event: str, object_id: int) -> int:
    from django.db import transaction

    from .messages import messages_for
    from .services import notifications_create

    with transaction.atomic():
        return len(notifications_create(messages_for(event, object_id)))


def _send(message: dict[str, Any]) -> int:
    from django.db import transaction

    from .messages import Message
    from .services import notifications_create

    with transaction.atomic():
        return len(notifications_create([Message.from_dict(message)]))


def _deliver(self: Any, notification_id: int) -> str | None:
    from .delivery import DeliveryFailed, notification_deliver

    try:
        notification = notification_deliver(notification_id=notification_id)
    except DeliveryFailed as error:
        raise self.retry(exc=error, countdown=error.retry_in, queue=OUTBOUND) from error
    return None if notification is None else str(notification.status)


def _sweep() -> dict[str, int]:
    from .delivery import notifications_sweep

    return notifications_sweep()


notification_event_task = shared_task(name="notifications.tasks.notification_event_task", **EVENT_OPTIONS)(_event)
notification_send_task = shared_task(name="notifications.tasks.notification_send_task", **EVENT_OPTIONS)(_send)
notification_deliver_task = shared_task(name="notifications.tasks.notification_deliver_task", **DELIVER_OPTIONS)(
    _deliver
)
notifications_sweep_task = shared_task(name="notifications.tasks.notifications_sweep_task", **SWEEP_OPTIONS)(_sweep)


# The names these tasks had before notifications became an app, kept as aliases for one release:
# a message the previous release queued on housekeeping (an event, or a delivery waiting for its
# retry) is still consumed there, by the housekeeping worker, which hands it over under the task's
# new name, to that task's queue (a delivery to outbound: it calls no one's server itself). Remove both these
# and their routes in CELERY_TASK_ROUTES in the release after.
FORMER_PREFIX = "lineit_platform.notifications.tasks."


def _handed_over(name: str) -> Any:
    def hand_over(*args: Any) -> bool:
        return send(f"notifications.tasks.{name}", *args, what=f"{name}{args!r}")

    return hand_over


for _name in ("notification_event_task", "notification_send_task", "notification_deliver_task"):
    shared_task(name=FORMER_PREFIX + _name, acks_late=True, time_limit=30)(_handed_over(_name))
