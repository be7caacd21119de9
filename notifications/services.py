"""Writes about notifications: telling an event or a message (its task sent after commit), a
user's settings, the notifications an event makes, and their delivery (one attempt each call;
the task tries again with backoff)."""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone

from lineit_platform.errors import ApplicationError
from lineit_platform.queueing import send_after_commit

from .messages import Message, absolute
from .models import Notification, NotificationEvent, NotificationSettings
from .webhooks import WebhookFailed, WebhookRefused, webhook_check, webhook_post

logger = logging.getLogger(__name__)

EVENT_TASK = "notifications.tasks.notification_event_task"
SEND_TASK = "notifications.tasks.notification_send_task"
DELIVER_TASK = "notifications.tasks.notification_deliver_task"
EMAIL_MAX_LENGTH = 254


# --- Telling: a task sent after the commit of what happened ---------------------------------


def notify_event(event: str, object_id: int) -> None:
    """Something happened to ``object_id``: its task (after commit) reads what and tells whom
    (messages.BUILDERS: ``event`` is one of its keys)."""
    send_after_commit(EVENT_TASK, event, object_id, what=f"the notifications of {event} {object_id}")


def notify(
    *, user_id: int, event: str, key: str, subject: str, text: str, url: str = "", data: dict[str, Any] | None = None
) -> None:
    """Tell one user about ``event`` (one of NotificationEvent), by the channels they chose for
    it. ``key`` says what it is about (``sprt:7:decided``): one notification per key and
    channel, so calling this twice sends once. ``url`` may be a path of the site (/bots/x/v2/).
    ``data``: the webhook payload's structured fields (JSON values: ids, statuses)."""
    message = Message(
        user_id=user_id, event=event, key=key, subject=subject, text=text, url=absolute(url), data=data or {}
    )
    send_after_commit(SEND_TASK, message.to_dict(), what=f"the notification {key}")


def notify_sprt_decided(
    *,
    sprt_id: int,
    owner_id: int,
    new_version: str,
    old_version: str,
    verdict: str,
    games: int,
    elo: float | None = None,
    elo_interval: tuple[float, float] | None = None,
    url: str = "",
) -> None:
    """The SPRT of ``new_version`` against ``old_version`` (labels, mybot@v4) decided ``verdict``
    ("H1 accepted", "H0 accepted", "undecided") after ``games`` games; ``elo``, with its 95%
    ``elo_interval``, the estimate of new over old. Call it once the verdict is written (it sends
    after commit); twice tells once."""
    estimate = ""
    if elo is not None:
        estimate = f", Elo {elo:+.1f}"
        if elo_interval is not None:
            estimate += f" [{elo_interval[0]:+.1f}, {elo_interval[1]:+.1f}]"
    meaning = {"H1 accepted": "it is stronger", "H0 accepted": "it is not stronger"}.get(verdict, "no decision")
    url = absolute(url)
    notify(
        user_id=owner_id,
        event=str(NotificationEvent.SPRT_DECIDED),
        key=f"sprt:{sprt_id}:decided",
        subject=f"SPRT {new_version} v {old_version}: {verdict}",
        text=f"SPRT of {new_version} against {old_version}: {verdict} ({meaning}) after {games} games{estimate}."
        + (f" {url}" if url else ""),
        url=url,
        data={
            "sprt_id": sprt_id,
            "new_version": new_version,
            "old_version": old_version,
            "verdict": verdict,
            "games": games,
            "elo": elo,
            "elo_interval": list(elo_interval) if elo_interval is not None else None,
        },
    )


# --- Settings ---------------------------------------------------------------------------------


def notification_settings_of(user: AbstractBaseUser) -> NotificationSettings:
    """The user's settings: their row, or the defaults (unsaved) when they never changed them."""
    found = NotificationSettings.objects.filter(user_id=user.pk).first()
    return found if found is not None else NotificationSettings(user_id=user.pk)


def _events(value: Iterable[str], field: str) -> list[str]:
    chosen = list(dict.fromkeys(value))
    unknown = [event for event in chosen if event not in NotificationEvent.values]
    if unknown:
        raise ApplicationError(
            f"{field}: unknown event {unknown[0]!r}; the events are {', '.join(NotificationEvent.values)}",
            extra={"field": field},
        )
    return [event for event in NotificationEvent.values if event in chosen]  # in the documented order


def webhook_url_check(url: str) -> str:
    """The URL as it will be stored ("" turns webhooks off), or ApplicationError saying why not."""
    url = url.strip()
    if url:
        try:
            webhook_check(url)
        except WebhookRefused as refusal:
            raise ApplicationError(f"webhook_url: {refusal}", extra={"field": "webhook_url"}) from None
    return url


def email_check(email: str) -> str:
    email = email.strip()
    if email:
        try:
            if len(email) > EMAIL_MAX_LENGTH:
                raise ValidationError("too long")
            validate_email(email)
        except ValidationError:
            raise ApplicationError(
                f"email: {email[:100]!r} is not an email address", extra={"field": "email"}
            ) from None
    return email


@transaction.atomic
def notification_settings_update(
    *,
    user: AbstractBaseUser,
    email_events: Iterable[str] | None = None,
    webhook_events: Iterable[str] | None = None,
    webhook_url: str | None = None,
    email: str | None = None,
) -> NotificationSettings:
    """Change the user's own settings (what is None stays as it is). Everything is checked first
    (unknown events, a webhook URL refused, an address that is none): on any refusal,
    ApplicationError and nothing changed. ``email`` is the account's address, where mail goes."""
    current = notification_settings_of(user)
    changes: dict[str, Any] = {}
    if email_events is not None:
        changes["email_events"] = _events(email_events, "email_events")
    if webhook_events is not None:
        changes["webhook_events"] = _events(webhook_events, "webhook_events")
    if webhook_url is not None:
        changes["webhook_url"] = webhook_url_check(webhook_url)
    new_email = email_check(email) if email is not None else None
    for name, value in changes.items():
        setattr(current, name, value)
    current.save()
    if new_email is not None and new_email != getattr(user, "email", ""):
        get_user_model().objects.filter(pk=user.pk).update(email=new_email)
        user.email = new_email
    return current


# --- Making notifications from an event -------------------------------------------------------


def notifications_create(messages: Iterable[Message]) -> list[Notification]:
    """One notification per message and channel the user chose, each delivered by a task sent
    after commit. A message already made (same user, channel and key) is not made again."""
    made = []
    for message in messages:
        made += _create_for(message)
    return made


def _create_for(message: Message) -> list[Notification]:
    user = get_user_model().objects.filter(pk=message.user_id, is_active=True).first()
    if user is None:
        return []
    chosen = notification_settings_of(user)
    destinations = []
    address = getattr(user, "email", "")
    if message.event in chosen.email_events and address:
        destinations.append((Notification.Channel.EMAIL, address))
    if message.event in chosen.webhook_events and chosen.webhook_url:
        destinations.append((Notification.Channel.WEBHOOK, chosen.webhook_url))
    made = []
    for channel, destination in destinations:
        try:
            with transaction.atomic():
                notification = Notification.objects.create(
                    user=user,
                    event=message.event,
                    channel=channel,
                    key=message.key[:200],
                    destination=destination,
                    subject=f"[Line-it Arena] {message.subject}"[:200],
                    text=message.text,
                    payload=webhook_payload(message),
                )
        except IntegrityError:
            continue  # told already (the event's task ran twice)
        send_after_commit(DELIVER_TASK, notification.pk, what=f"notification {notification.pk}")
        made.append(notification)
    return made


def _slack_escaped(text: str) -> str:
    """Slack reads &, < and > as markup (<!channel> pings everyone): escaped, as Slack asks."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def webhook_payload(message: Message) -> dict[str, Any]:
    """The JSON a webhook receives: ``text`` for Slack, ``content`` for Discord (no mention
    pings anyone), then the structured fields: ``event``, ``url`` and the event's ids."""
    return {
        "text": _slack_escaped(message.text),
        "content": message.text,
        "allowed_mentions": {"parse": []},
        "event": message.event,
        "url": message.url,
        **message.data,
    }


# --- Delivering one -------------------------------------------------------------------------


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


def notification_deliver(*, notification_id: int) -> Notification | None:
    """One attempt at delivering the notification. Sent, given up, or DeliveryFailed (another
    attempt is due: the task retries after its ``retry_in``). One sent or given up already is left
    as it is (a redelivered task sends nothing twice). The row is claimed with a conditional
    UPDATE of its attempts, so two workers cannot both send one attempt."""
    notification = Notification.objects.filter(pk=notification_id).first()
    if notification is None or notification.status != Notification.Status.PENDING:
        return notification
    attempt = notification.attempts + 1
    if not Notification.objects.filter(
        pk=notification.pk, status=Notification.Status.PENDING, attempts=notification.attempts
    ).update(attempts=attempt):
        return None  # another worker took this attempt
    notification.attempts = attempt
    try:
        _send(notification)
    except (WebhookFailed, WebhookRefused, smtplib.SMTPException, OSError) as error:
        return _failed(notification, error)
    Notification.objects.filter(pk=notification.pk).update(
        status=Notification.Status.SENT, sent_at=timezone.now(), next_attempt_at=None, last_error=""
    )
    notification.refresh_from_db()
    return notification


def _send(notification: Notification) -> None:
    if notification.channel == Notification.Channel.EMAIL:
        mail = EmailMessage(
            subject=notification.subject,
            body=notification.text,
            from_email=settings.DEFAULT_FROM_EMAIL,
            to=[notification.destination],
        )
        mail.send(fail_silently=False)
    else:
        webhook_post(notification.destination, notification.payload)


def _permanent(error: Exception) -> bool:
    if isinstance(error, WebhookRefused):
        return True
    if isinstance(error, WebhookFailed):
        return error.permanent
    return isinstance(error, smtplib.SMTPRecipientsRefused)


def _failed(notification: Notification, error: Exception) -> Notification:
    message = str(error) or type(error).__name__
    if isinstance(error, smtplib.SMTPException | OSError) and not isinstance(error, WebhookFailed):
        message = f"mail: {type(error).__name__}: {message}"
    message = message[:500]
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
    Notification.objects.filter(pk=notification.pk).update(
        last_error=message, next_attempt_at=timezone.now() + timedelta(seconds=delay)
    )
    raise DeliveryFailed(message, retry_in=delay)
