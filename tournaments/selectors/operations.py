"""What the platform's operations read of the matches: the system checks
(lineit_platform/checks.py) and ``/metrics`` (lineit_platform/metrics.py) ask here, and know no
model, status or query of this app. A few statuses, counts and times; nothing here writes.

Each read is on the status index or by primary key: the ended matches, millions, are never
counted here (the metrics keep their own tallies)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count

from lineit.botkit.limits import Limits
from lineit_platform.errors import ApplicationError

from ..models import GameFailure, Match
from ..services.matches.states import match_duration_check

PENDING: tuple[str, ...] = Match.PENDING  # queued, running
FINISHED, FAILED, CANCELLED = Match.Status.FINISHED, Match.Status.FAILED, Match.Status.CANCELLED
ENDED: tuple[str, ...] = (FINISHED, FAILED, CANCELLED)


@dataclass(frozen=True)
class MatchTimes:
    status: str
    started_at: datetime | None
    finished_at: datetime | None

    @property
    def pending(self) -> bool:
        return self.status in PENDING


def match_status(match_id: object) -> str | None:
    """The match's status; None when there is no such match."""
    return Match.objects.filter(pk=match_id).values_list("status", flat=True).first()


def match_times(match_id: int) -> MatchTimes | None:
    """The match's status, start and end (one query); None when there is no such match."""
    row = Match.objects.filter(pk=match_id).values("status", "started_at", "finished_at").first()
    return None if row is None else MatchTimes(row["status"], row["started_at"], row["finished_at"])


def match_failures_by_kind(match_id: int) -> dict[str, int]:
    """How many failures of each kind the match's games had."""
    failures = GameFailure.objects.filter(match_id=match_id).values("kind").annotate(n=Count("id"))
    return {row["kind"]: row["n"] for row in failures}


def matches_failed_since(since: datetime) -> list[int]:
    """The ids of the matches failed from ``since`` on (failed matches are few)."""
    failed = Match.objects.filter(status=FAILED, finished_at__gte=since).order_by()
    return list(failed.values_list("pk", flat=True))


def pending_counts() -> dict[str, int]:
    """The matches queued and running, by status (a status without any is absent)."""
    return dict(
        Match.objects.filter(status__in=PENDING)
        .order_by()
        .values_list("status")
        .annotate(n=Count("id"))
        .values_list("status", "n")
    )


def match_duration_refusal(*, num_players: int, games: int, limits: Limits) -> str | None:
    """Why match_schedule would refuse every match of this size for its length under these
    limits (services/matches.py: match_duration_check, the one rule), or None when it fits. The
    rule reads no row and writes none: the system checks ask it of the settings."""
    try:
        match_duration_check(num_players=num_players, games=games, limits=limits)
    except ApplicationError as error:
        return str(error)
    return None
