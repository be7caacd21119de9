"""Writes about notifications: telling an event or a message (its task sent after commit), a
user's settings, and the notifications an event makes (their delivery: delivery.py)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

from lineit_platform.errors import ApplicationError
from lineit_platform.queueing import send_after_commit

from .deadline import total_deadline
from .delivery import lock_users, send_next
from .messages import Message, absolute
from .models import Notification, NotificationEvent, NotificationSettings
from .webhooks import WebhookRefused, webhook_check

logger = logging.getLogger(__name__)

EVENT_TASK = "notifications.tasks.notification_event_task"
SEND_TASK = "notifications.tasks.notification_send_task"
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
        seconds = settings.WEBHOOK_TIMEOUT_SECONDS
        try:
            with total_deadline(seconds):  # its host's name server may not answer
                webhook_check(url)
        except WebhookRefused as refusal:
            raise ApplicationError(f"webhook_url: {refusal}", extra={"field": "webhook_url"}) from None
        except TimeoutError:
            raise ApplicationError(
                f"webhook_url: its host's name was not looked up within {seconds:g} s; try again later",
                extra={"field": "webhook_url"},
            ) from None
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


@transaction.atomic
def notifications_create(messages: Iterable[Message]) -> list[Notification]:
    """One notification per message and channel the user chose, each delivered in its user's
    turn (delivery.py: the first one's task is sent after commit unless one of theirs is being
    delivered, which sends the next when it ends). A message already made (same user, channel and
    key) is not made again."""
    messages = list(messages)
    lock_users(message.user_id for message in messages)
    made = []
    for message in messages:
        made += _create_for(message)
    for user_id, channel in dict.fromkeys((notification.user_id, notification.channel) for notification in made):
        send_next(user_id=user_id, channel=channel)
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
