"""Celery tasks of notifications, on the housekeeping queue (CELERY_TASK_ROUTES): thin, ids in.

``notification_event_task`` turns an event (sent after the commit of what happened) into
notifications; ``notification_send_task`` does so for one message (services.notify);
``notification_deliver_task`` delivers one, trying again with exponential backoff (the delay the
service computes and stores as the notification's next_attempt_at) until it is sent or given up
after NOTIFICATION_MAX_ATTEMPTS attempts.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

EVENT_OPTIONS: dict[str, Any] = {"acks_late": True, "time_limit": 120, "soft_time_limit": 100}
DELIVER_OPTIONS: dict[str, Any] = {
    "bind": True,
    "acks_late": True,
    "reject_on_worker_lost": True,
    # A webhook is bounded by WEBHOOK_TIMEOUT_SECONDS and a mail by EMAIL_TIMEOUT; this is the backstop.
    "time_limit": 90,
    "soft_time_limit": 60,
    "max_retries": settings.NOTIFICATION_MAX_ATTEMPTS,
}


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
    from .services import DeliveryFailed, notification_deliver

    try:
        notification = notification_deliver(notification_id=notification_id)
    except DeliveryFailed as error:
        raise self.retry(exc=error, countdown=error.retry_in) from error
    return None if notification is None else str(notification.status)


notification_event_task = shared_task(name="notifications.tasks.notification_event_task", **EVENT_OPTIONS)(_event)
notification_send_task = shared_task(name="notifications.tasks.notification_send_task", **EVENT_OPTIONS)(_send)
notification_deliver_task = shared_task(name="notifications.tasks.notification_deliver_task", **DELIVER_OPTIONS)(
    _deliver
)

# The names these tasks had before notifications became an app, kept as aliases for one release:
# a message the previous release queued (an event, or a delivery waiting for its retry) is still
# consumed, by the same code. Their routes stay in CELERY_TASK_ROUTES with them (a retry is sent
# again under the name it came with). Remove both in the release after.
FORMER_PREFIX = "lineit_platform.notifications.tasks."
shared_task(name=FORMER_PREFIX + "notification_event_task", **EVENT_OPTIONS)(_event)
shared_task(name=FORMER_PREFIX + "notification_send_task", **EVENT_OPTIONS)(_send)
shared_task(name=FORMER_PREFIX + "notification_deliver_task", **DELIVER_OPTIONS)(_deliver)
