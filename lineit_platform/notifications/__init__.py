"""Notifications: email and webhooks about what happened to a user's bots and matches
(docs/platform.md, "Notifications").

The hooks below are what the services call. Each only sends a task after the current transaction
commits (a match's or a validation's transaction never waits for a mail or a webhook, and a
rolled-back one tells nothing); the task, on the housekeeping queue, reads what happened, makes
one notification per channel the user chose (bots.models.Notification) and sends each by a task
of its own, tried again with exponential backoff. This module imports no app at import time, so
bots and tournaments services may import it.

- ``notify_version_validated(version_id)``: a validation ended (validated or rejected);
- ``notify_version_off_ladder(version_id)``: a version was taken off the ladder;
- ``notify_match_ended(match)``: a match ended (only a test match someone requested tells them);
- ``notify_tournament_finished(tournament_id)``: to the owners of its entrants;
- ``notify_sprt_decided(...)``: the SPRT of a version against the previous one decided;
- ``notify(...)``: any message to one user, for a new event.
"""

from __future__ import annotations

from typing import Any

from lineit_platform.queueing import send_after_commit

EVENT_TASK = "lineit_platform.notifications.tasks.notification_event_task"
SEND_TASK = "lineit_platform.notifications.tasks.notification_send_task"


def _absolute(url: str) -> str:
    from django.conf import settings

    return f"{settings.SITE_URL}{url}" if url.startswith("/") else url


def _event(event: str, object_id: int) -> None:
    send_after_commit(EVENT_TASK, event, object_id, what=f"the notifications of {event} {object_id}")


def notify_version_validated(version_id: int) -> None:
    """The version's validation ended (it is active or rejected): its owner is told which."""
    _event("version_validation", version_id)


def notify_version_off_ladder(version_id: int) -> None:
    """The version was taken off the ladder: its owner is told why."""
    _event("version_off_ladder", version_id)


def notify_match_ended(match: Any) -> None:
    """A match ended. Only a test match requested by someone (origin manual) tells anyone: the
    others send nothing at all (checked here, on the row in hand: no query, no task)."""
    if getattr(match, "origin", None) == "manual" and getattr(match, "requested_by_id", None) is not None:
        _event("match_ended", match.pk)


def notify_tournament_finished(tournament_id: int) -> None:
    """The tournament finished: each entrant's owner is told their bots' places."""
    _event("tournament_finished", tournament_id)


def notify(
    *, user_id: int, event: str, key: str, subject: str, text: str, url: str = "", data: dict[str, Any] | None = None
) -> None:
    """Tell one user about ``event`` (one of bots.models.NotificationEvent), by the channels they
    chose for it. ``key`` says what it is about (``sprt:7:decided``): one notification per key and
    channel, so calling this twice sends once. ``url`` may be a path of the site (/bots/x/v2/).
    ``data``: the webhook payload's structured fields (JSON values: ids, statuses)."""
    message = {
        "user_id": user_id,
        "event": event,
        "key": key,
        "subject": subject,
        "text": text,
        "url": _absolute(url),
        "data": data or {},
    }
    send_after_commit(SEND_TASK, message, what=f"the notification {key}")


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
    url = _absolute(url)
    notify(
        user_id=owner_id,
        event="sprt_decided",
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
