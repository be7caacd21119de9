"""What each announcement of the other apps tells, and whom (bots/signals.py,
tournaments/signals.py). Imported, and so connected (@receiver), once by
NotificationsConfig.ready().

A receiver runs inside the transaction of what happened and only sends a task after it commits
(services.notify_event, services.notify_sprt_decided): that transaction never waits for a mail
or a webhook, and one rolled back tells nothing. The event's task then reads what happened
(messages.py) and makes one notification per channel the user chose.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver
from django.urls import reverse

from bots import signals as bots
from tournaments import signals as tournaments
from tournaments.models import Match

from .services import notify_event, notify_sprt_decided


@receiver(bots.version_validation_ended, dispatch_uid="notifications.receivers.version_validation_ended")
def version_validation_ended(sender: Any, *, version_id: int, **_: Any) -> None:
    """Its owner is told whether it passed (active) or was rejected, and why."""
    notify_event("version_validation", version_id)


@receiver(bots.version_off_ladder, dispatch_uid="notifications.receivers.version_off_ladder")
def version_off_ladder(sender: Any, *, version_id: int, **_: Any) -> None:
    """Its owner is told why."""
    notify_event("version_off_ladder", version_id)


@receiver(tournaments.match_ended, dispatch_uid="notifications.receivers.match_ended")
def match_ended(sender: Any, *, match: Match, **_: Any) -> None:
    """Only a test match requested by someone (origin manual) tells anyone, who asked: the others
    send nothing at all (checked here, on the row in hand: no query, no task)."""
    if match.origin == Match.Origin.MANUAL and match.requested_by_id is not None:
        notify_event("match_ended", match.pk)


@receiver(tournaments.tournament_finished, dispatch_uid="notifications.receivers.tournament_finished")
def tournament_finished(sender: Any, *, tournament_id: int, **_: Any) -> None:
    """Each entrant's owner is told their bots' places."""
    notify_event("tournament_finished", tournament_id)


@receiver(tournaments.sprt_decided, dispatch_uid="notifications.receivers.sprt_decided")
def sprt_decided(
    sender: Any,
    *,
    sprt_id: int,
    owner_id: int,
    bot: str,
    new_version_number: int,
    new_version: str,
    old_version: str,
    verdict: str,
    games: int,
    elo: float | None,
    elo_interval: tuple[float, float] | None,
    **_: Any,
) -> None:
    """The bot's owner is told the verdict, with a link to the new version's page."""
    notify_sprt_decided(
        sprt_id=sprt_id,
        owner_id=owner_id,
        new_version=new_version,
        old_version=old_version,
        verdict=verdict,
        games=games,
        elo=elo,
        elo_interval=elo_interval,
        url=reverse("version-detail", args=[bot, new_version_number]),
    )
