"""What each event tells whom: read from the rows when the event's task runs (after the commit
of what happened), so a message says what is true then, and an event sent twice builds the same
messages, with the same keys (sent once: models.Notification is unique per key)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.urls import reverse

from bots.models import BotVersion
from lineit import formats
from lineit.botkit.untrusted import safe_text
from tournaments.models import Match, Tournament

from .models import NotificationEvent

logger = logging.getLogger(__name__)

TEXT_MAX_LENGTH = 1900  # Discord takes 2,000 characters of content


@dataclass(frozen=True)
class Message:
    """One event for one user: a subject (the mail's), a text (the mail's body and the webhook's
    text), a link, and the structured fields of the webhook's payload (ids, statuses)."""

    user_id: int
    event: str
    key: str
    subject: str
    text: str
    url: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "event": self.event,
            "key": self.key,
            "subject": self.subject,
            "text": self.text,
            "url": self.url,
            "data": self.data,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        return cls(**data)


def absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}" if path.startswith("/") else path


def _version_url(version: BotVersion) -> str:
    return absolute(reverse("version-detail", args=[version.bot.name, version.number]))


def _version_data(version: BotVersion) -> dict[str, Any]:
    return {"version_id": version.pk, "bot": version.bot.name, "version": version.number, "label": version.label}


def version_validation_messages(version_id: int) -> list[Message]:
    """A validation ended: active (validated) or rejected, told to the bot's owner."""
    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first()
    if version is None:
        return []
    url = _version_url(version)
    if version.status == BotVersion.Status.REJECTED:
        summary = version.rejection_summary or "the validation failed"
        return [
            Message(
                user_id=version.bot.owner_id,
                event=str(NotificationEvent.VERSION_REJECTED),
                key=f"version:{version.pk}:rejected",
                subject=f"{version.label} was rejected",
                text=f"{version.label} was rejected: {summary}. Its page says why: {url}",
                url=url,
                data=_version_data(version) | {"status": version.status, "reason": summary},
            )
        ]
    if version.status == BotVersion.Status.ACTIVE and version.validated_at is not None:
        return [
            Message(
                user_id=version.bot.owner_id,
                event=str(NotificationEvent.VERSION_VALIDATED),
                key=f"version:{version.pk}:validated",
                subject=f"{version.label} passed its validation",
                text=f"{version.label} passed its validation and is active: {url}",
                url=url,
                data=_version_data(version) | {"status": version.status},
            )
        ]
    return []  # still validating (retried), or retired meanwhile: nothing to tell


def version_off_ladder_messages(version_id: int) -> list[Message]:
    """The version was taken off the ladder (bots.services.bot_version_ladder_remove)."""
    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first()
    removed_at = getattr(version, "ladder_removed_at", None)
    if version is None or removed_at is None:
        return []  # put back meanwhile
    reason = safe_text(getattr(version, "ladder_removed_reason", ""), max_length=500) or "no reason given"
    url = _version_url(version)
    return [
        Message(
            user_id=version.bot.owner_id,
            event=str(NotificationEvent.VERSION_OFF_LADDER),
            key=f"version:{version.pk}:off-ladder:{removed_at.isoformat()}",
            subject=f"{version.label} was taken off the ladder",
            text=f"{version.label} was taken off the ladder: {reason}. You can put it back on its page: {url}",
            url=url,
            data=_version_data(version)
            | {"reason": reason, "match_id": getattr(version, "ladder_removed_match", None)},
        )
    ]


def match_ended_messages(match_id: int) -> list[Message]:
    """A test match someone requested finished (or failed): told to who requested it."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.origin != Match.Origin.MANUAL or match.requested_by_id is None:
        return []
    if match.status not in (Match.Status.FINISHED, Match.Status.FAILED):
        return []
    rows = sorted(match.entrant_summary, key=lambda row: row["index"])
    versions = BotVersion.objects.select_related("bot").in_bulk([row["version"] for row in rows])
    names = [versions[row["version"]].label if row["version"] in versions else "?" for row in rows]
    url = absolute(reverse("match-detail", args=[match.pk]))
    data: dict[str, Any] = {"match_id": match.pk, "status": match.status, "games": match.games_played}
    if match.status == Match.Status.FAILED:
        error = safe_text(match.error, max_length=300)
        subject = f"Your test match {match.pk} failed"
        text = f"Your test match {match.pk} ({' v '.join(names)}) failed: {error} {url}"
        data["error"] = error
    else:
        totals = ", ".join(
            f"{name} {row['total_score']} points, {row['wins']} wins" for name, row in zip(names, rows, strict=True)
        )
        subject = f"Your test match {match.pk} finished"
        text = f"Your test match {match.pk} finished after {match.games_played} games: {totals}. {url}"
        data["entrants"] = [
            {"version_id": row["version"], "label": name, "total_score": row["total_score"], "wins": row["wins"]}
            for name, row in zip(names, rows, strict=True)
        ]
    return [
        Message(
            user_id=match.requested_by_id,
            event=str(NotificationEvent.MATCH_FINISHED),
            key=f"match:{match.pk}:ended",
            subject=subject,
            text=text,
            url=url,
            data=data,
        )
    ]


def _ordinal(place: int) -> str:
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def tournament_finished_messages(tournament_id: int) -> list[Message]:
    """A tournament finished: told to the owner of each entrant, with their bots' places."""
    tournament = Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.FINISHED).first()
    if tournament is None or not tournament.state:
        return []
    state = formats.TournamentState.from_dict(tournament.state)
    standings = formats.standings(state)
    versions = BotVersion.objects.select_related("bot").in_bulk([row.entrant for row in standings])
    name = safe_text(tournament.name, max_length=100)
    url = absolute(reverse("tournament-detail", args=[tournament.pk]))
    winners = [versions[row.entrant].label for row in standings if row.place == 1 and row.entrant in versions]
    places: dict[int, list[tuple[int, BotVersion]]] = {}
    for row in standings:
        version = versions.get(row.entrant)
        if version is not None:
            places.setdefault(version.bot.owner_id, []).append((row.place, version))
    messages = []
    for owner_id, theirs in places.items():
        said = "; ".join(f"{version.label} placed {_ordinal(place)}" for place, version in theirs)
        messages.append(
            Message(
                user_id=owner_id,
                event=str(NotificationEvent.TOURNAMENT_FINISHED),
                key=f"tournament:{tournament.pk}:finished",
                subject=f"Tournament {name} finished",
                text=f"Tournament {name} finished ({len(standings)} entrants, won by {' and '.join(winners)}): "
                f"{said}. {url}",
                url=url,
                data={
                    "tournament_id": tournament.pk,
                    "name": name,
                    "entrants": len(standings),
                    "winners": winners,
                    "places": [
                        {"version_id": version.pk, "label": version.label, "place": place} for place, version in theirs
                    ],
                },
            )
        )
    return messages


BUILDERS = {
    "version_validation": version_validation_messages,
    "version_off_ladder": version_off_ladder_messages,
    "match_ended": match_ended_messages,
    "tournament_finished": tournament_finished_messages,
}


def messages_for(event: str, object_id: int) -> list[Message]:
    builder = BUILDERS.get(event)
    if builder is None:
        logger.warning("no notification builder for the event %r", event)
        return []
    return builder(object_id)
