"""Delivering notifications: one attempt per task, each user's in turn, every attempt recorded.

**Turns.** A user has at most one attempt in progress per channel (``sending_until``, a lease
a little longer than the delivery task's hard time limit). Their other notifications wait in the
database, not in the queue: the attempt that ends sends the next one's task (``_send_next``), and
a notification made while another is in progress is sent then. So one user's slow receivers hold
one outbound process at a time, for at most one deadline (WEBHOOK_TIMEOUT_SECONDS, EMAIL_TIMEOUT),
and another user's notification waits for them at most that long, however many they have.

**Every attempt ends recorded**: sent; failed with its reason and tried again after a backoff
(the task retries after ``DeliveryFailed.retry_in``); or given up. An attempt stopped by anything
else (the task's soft time limit included) is recorded the same way. One whose worker was killed
keeps its lease until it runs out; then ``notifications_sweep`` records it and sends it again,
as it sends again a delivery message that was lost (never one still waiting in the broker).

The user's row is locked while their turn is decided (claiming an attempt, ending one, making
notifications), so two workers cannot both take a user's turn; several users are locked in id
order (notifications_create), so two transactions never wait for each other.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from lineit_platform.queueing import OUTBOUND, resend_lost, send_after_commit

from .models import Notification
from .webhooks import WebhookFailed, WebhookRefused, webhook_post

logger = logging.getLogger(__name__)

DELIVER_TASK = "notifications.tasks.notification_deliver_task"
# A notification whose next attempt is this close is taken as due (the retry's countdown and the
# stored time are a moment apart, hosts' clocks a little more).
DUE_EARLY = timedelta(seconds=2)


def lease() -> timedelta:
    """How long an attempt holds its notification: past the delivery task's hard time limit."""
    return timedelta(seconds=settings.NOTIFICATION_HARD_TIME_LIMIT_SECONDS + 30)


class DeliveryFailed(Exception):
    """This attempt failed and another is due in ``retry_in`` seconds."""

    def __init__(self, message: str, *, retry_in: float) -> None:
        super().__init__(message)
        self.retry_in = retry_in


def retry_delay(attempts: int) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones: NOTIFICATION_RETRY_SECONDS
    doubled each time, at most NOTIFICATION_RETRY_MAX_SECONDS."""
    return float(
        min(settings.NOTIFICATION_RETRY_SECONDS * 2 ** (attempts - 1), settings.NOTIFICATION_RETRY_MAX_SECONDS)
    )


def lock_users(user_ids: Iterable[int]) -> None:
    """Lock the users' rows, in id order, until the transaction ends."""
    ids = sorted(set(user_ids))
    if ids:
        list(get_user_model().objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk"))


def _in_progress(user_id: int, channel: str, now: datetime) -> Q:
    return Q(user_id=user_id, channel=channel, status=Notification.Status.PENDING, sending_until__gt=now)


def _waiting(user_id: int, channel: str, now: datetime) -> Q:
    """Pending, no attempt in progress, and due (never tried, or its next attempt's time came)."""
    return (
        Q(user_id=user_id, channel=channel, status=Notification.Status.PENDING)
        & (Q(sending_until__isnull=True) | Q(sending_until__lte=now))
        & (Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now + DUE_EARLY))
    )


def send_next(*, user_id: int, channel: str, now: datetime | None = None) -> int | None:
    """Send the delivery task of the user's next notification on ``channel`` (after commit),
    unless an attempt is in progress or a task is out for one already; its id, or None. Call it
    with the user's row locked (lock_users)."""
    now = now or timezone.now()
    if Notification.objects.filter(_in_progress(user_id, channel, now)).exists():
        return None
    waiting = Notification.objects.filter(_waiting(user_id, channel, now)).order_by("created_at", "pk")
    if waiting.filter(queued_at__isnull=False).exists():
        return None  # its task is on its way
    following = waiting.values_list("pk", flat=True).first()
    if following is not None:
        Notification.objects.filter(pk=following).update(queued_at=now)
        _send_task(following)
    return following


def _send_task(notification_id: int) -> None:
    send_after_commit(DELIVER_TASK, notification_id, what=f"notification {notification_id}", queue=OUTBOUND)


# --- One attempt ------------------------------------------------------------------------------


def notification_deliver(*, notification_id: int) -> Notification | None:
    """One attempt at delivering the notification, when it is its user's turn. Sent, given up,
    or DeliveryFailed (another attempt is due: the task retries after its ``retry_in``). A
    notification sent or given up already is returned as it is (a redelivered task sends nothing
    twice); None when no attempt was made now: another of the user's is in progress (it sends
    this one's task when it ends)."""
    notification = _claim(notification_id)
    if notification is None:
        found = Notification.objects.filter(pk=notification_id).first()
        return found if found is not None and found.status != Notification.Status.PENDING else None
    try:
        return _attempt(notification)
    finally:
        _release(notification)


@transaction.atomic
def _claim(notification_id: int) -> Notification | None:
    notification = Notification.objects.filter(pk=notification_id).first()
    if notification is None or notification.status != Notification.Status.PENDING:
        return None
    lock_users([notification.user_id])
    now = timezone.now()
    notification = Notification.objects.get(pk=notification_id)  # as it is now, under the lock
    if notification.status != Notification.Status.PENDING:
        return None
    if Notification.objects.filter(_in_progress(notification.user_id, notification.channel, now)).exists():
        # Not its turn: the attempt in progress sends this one's task when it ends.
        Notification.objects.filter(pk=notification.pk).update(queued_at=None)
        return None
    notification.attempts += 1
    notification.sending_until = now + lease()
    notification.queued_at = None
    notification.save(update_fields=["attempts", "sending_until", "queued_at"])
    return notification


def _attempt(notification: Notification) -> Notification:
    try:
        _send(notification)
    except (WebhookFailed, WebhookRefused, smtplib.SMTPException, OSError) as error:
        return _failed(notification, error)
    except Exception as error:  # stopped by the task's soft time limit, or by anything unforeseen
        logger.warning("notification %s: attempt %s stopped by %r", notification.pk, notification.attempts, error)
        return _failed(notification, error, stopped=True)
    Notification.objects.filter(pk=notification.pk).update(
        status=Notification.Status.SENT, sent_at=timezone.now(), next_attempt_at=None, last_error=""
    )
    notification.refresh_from_db()
    return notification


@transaction.atomic
def _release(notification: Notification) -> None:
    """The attempt is over (recorded): the user's turn passes to their next notification."""
    lock_users([notification.user_id])
    Notification.objects.filter(pk=notification.pk).update(sending_until=None)
    send_next(user_id=notification.user_id, channel=notification.channel)


def _send(notification: Notification) -> None:
    if notification.channel == Notification.Channel.EMAIL:
        mail = EmailMessage(
            subject=notification.subject,
            body=notification.text,
            from_email=settings.DEFAULT_FROM_EMAIL,
            to=[notification.destination],
        )
        mail.send(fail_silently=False)  # within EMAIL_TIMEOUT in all (notifications/mail.py)
    else:
        webhook_post(notification.destination, notification.payload)  # within WEBHOOK_TIMEOUT_SECONDS


def _permanent(error: Exception) -> bool:
    if isinstance(error, WebhookRefused):
        return True
    if isinstance(error, WebhookFailed):
        return error.permanent
    return isinstance(error, smtplib.SMTPRecipientsRefused)


def _reason(error: Exception, *, stopped: bool) -> str:
    message = str(error) or type(error).__name__
    if stopped:
        message = f"stopped by {type(error).__name__}" + (f": {error}" if str(error) else "")
    elif isinstance(error, smtplib.SMTPException | OSError) and not isinstance(error, WebhookFailed):
        message = f"mail: {type(error).__name__}: {message}"
    return message[:500]


def _failed(notification: Notification, error: Exception, *, stopped: bool = False) -> Notification:
    message = _reason(error, stopped=stopped)
    out_of_attempts = notification.attempts >= settings.NOTIFICATION_MAX_ATTEMPTS
    if _permanent(error) or out_of_attempts:
        why = "given up" if _permanent(error) else f"given up after {notification.attempts} attempts"
        logger.info("notification %s %s: %s", notification.pk, why, message)
        Notification.objects.filter(pk=notification.pk).update(
            status=Notification.Status.FAILED, last_error=message, next_attempt_at=None
        )
        notification.refresh_from_db()
        return notification
    delay = retry_delay(notification.attempts)
    now = timezone.now()
    # The task's retry is the message that is out for it now (queued_at): the sweeper sends it
    # again only if the broker lost it.
    Notification.objects.filter(pk=notification.pk).update(
        last_error=message, next_attempt_at=now + timedelta(seconds=delay), queued_at=now
    )
    raise DeliveryFailed(message, retry_in=delay)


# --- The sweeper ----------------------------------------------------------------------------


def notifications_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """What stopped attempts and lost messages left pending: an attempt whose lease ran out (its
    worker was killed) is recorded as failed (and given up when out of attempts); a delivery
    task sent long ago and in the broker no more is sent again; a user whose turn nobody holds
    gets their next notification sent. Safe to run at any time (beat: notifications-sweep)."""
    now = now or timezone.now()
    counts = {"stopped": _stale_attempts_recorded(now), "resent": 0, "started": 0}
    with transaction.atomic():
        lost = resend_lost(
            Notification.objects.filter(status=Notification.Status.PENDING)
            .filter(Q(sending_until__isnull=True) | Q(sending_until__lte=now))
            .filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)),
            sent_at="queued_at",
            before=now - lease(),
            now=now,
            send_one=_send_task,
            task=DELIVER_TASK,
            queues=[OUTBOUND],
        )
        counts["resent"] = len(lost)
    idle = (
        Notification.objects.filter(status=Notification.Status.PENDING, queued_at__isnull=True)
        .filter(Q(sending_until__isnull=True) | Q(sending_until__lte=now))
        .filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now))
        .values_list("user_id", "channel")
        .distinct()
    )
    for user_id, channel in list(idle):
        with transaction.atomic():
            lock_users([user_id])
            counts["started"] += send_next(user_id=user_id, channel=channel, now=now) is not None
    return counts


def _stale_attempts_recorded(now: datetime) -> int:
    stale = list(
        Notification.objects.filter(status=Notification.Status.PENDING, sending_until__lte=now).values_list(
            "pk", "user_id"
        )
    )
    for pk, user_id in stale:
        with transaction.atomic():
            lock_users([user_id])
            notification = Notification.objects.filter(
                pk=pk, status=Notification.Status.PENDING, sending_until__lte=now
            ).first()
            if notification is None:
                continue
            message = f"attempt {notification.attempts} did not end (its worker stopped before recording it)"
            logger.warning("notification %s: %s", pk, message)
            given_up = notification.attempts >= settings.NOTIFICATION_MAX_ATTEMPTS
            Notification.objects.filter(pk=pk).update(
                status=Notification.Status.FAILED if given_up else Notification.Status.PENDING,
                last_error=message,
                sending_until=None,
                next_attempt_at=None,
                queued_at=None,
            )
    return len(stale)
