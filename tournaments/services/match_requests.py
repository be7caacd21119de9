"""Unranked matches that users request against opponents they choose, within a quota.

The one place for the quota, whether the request came through the API or the test-match page.
The quota (settings: API_MATCH_QUOTA_*, API_MATCH_MAX_GAMES) bounds what one user can make the
workers do: how many games one match may have, how many of their requested matches may be queued
or running at once, and how many games they may request in any 24 hours. Staff are exempt from
the last two. Checks and scheduling happen in one transaction under a lock on the user's row
(SELECT ... FOR UPDATE), so simultaneous requests are counted one after the other and cannot
both slip under the quota. The rate of requests is the throttle service's (lineit_platform/throttles.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from bots.models import BotVersion
from lineit_platform.errors import ApplicationError

from ..models import Match
from .matches.states import match_schedule

QUOTA_WINDOW = timedelta(hours=24)


class QuotaExceeded(ApplicationError):
    code = "quota_exceeded"


def match_request_usage(*, user: AbstractBaseUser) -> dict[str, int]:
    """The user's pending requested matches and the games requested in the last 24 hours."""
    mine = Match.objects.filter(requested_by=user, origin=Match.Origin.MANUAL)
    since = timezone.now() - QUOTA_WINDOW
    return {
        "pending": mine.filter(status__in=Match.PENDING).count(),
        "games_last_24h": mine.filter(created_at__gte=since).aggregate(total=Sum("games"))["total"] or 0,
    }


@transaction.atomic
def match_request(
    *,
    requested_by: AbstractBaseUser,
    versions: Sequence[BotVersion],
    games: int,
    ruleset: str,
    seed: int | None = None,
    duplicate_deals: bool = True,
    rotate_seats: bool = True,
) -> Match:
    """Schedule an unranked match between ``versions`` for ``requested_by``, within the quota."""
    if games > settings.API_MATCH_MAX_GAMES:
        raise ApplicationError(f"games: at most {settings.API_MATCH_MAX_GAMES} games in a test match, not {games}")
    get_user_model().objects.select_for_update().filter(pk=requested_by.pk).first()
    if not getattr(requested_by, "is_staff", False):
        usage = match_request_usage(user=requested_by)
        if usage["pending"] >= settings.API_MATCH_QUOTA_PENDING:
            raise QuotaExceeded(
                f"you already have {usage['pending']} requested matches queued or running; "
                f"the limit is {settings.API_MATCH_QUOTA_PENDING}"
            )
        if usage["games_last_24h"] + games > settings.API_MATCH_QUOTA_DAILY_GAMES:
            raise QuotaExceeded(
                f"{games} more games would make {usage['games_last_24h'] + games} in 24 hours; "
                f"the limit is {settings.API_MATCH_QUOTA_DAILY_GAMES}"
            )
    return match_schedule(
        versions=versions,
        games=games,
        ruleset=ruleset,
        seed=seed,
        duplicate_deals=duplicate_deals,
        rotate_seats=rotate_seats,
        ranked=False,
        requested_by=requested_by,
        origin=Match.Origin.MANUAL,
    )
