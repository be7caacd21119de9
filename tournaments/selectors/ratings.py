"""Read-only queries of the ratings domain, shared by the API and the pages. Nothing here writes.

The leaderboard is read one way (``leaderboard``: the ratings of one ruleset and rules version,
best first, for filtering and paging) and built once (``leaderboard_rows``: what a row shows), as
plain data that the API's serializer picks its declared fields from and the home page shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet, Sum

from bots.models import BotVersion, version_label
from lineit.engine import RULES_VERSION
from lineit.stats.elo import PROVISIONAL_GAMES
from tournaments.models import Match, MatchEntrant, Rating

Row = dict[str, Any]


def leaderboard(ratings: QuerySet[Rating] | None = None) -> QuerySet[Rating]:
    """These ratings (all by default) best first, ties by version, with what a row shows of
    their versions. Counted, it reads only the ratings (the leaderboard index)."""
    ratings = Rating.objects.all() if ratings is None else ratings
    return (
        ratings.select_related("version__bot__owner")
        .only(
            "version_id",
            "ruleset",
            "rules_version",
            "rating",
            "games",
            "updated_at",
            "version__number",
            "version__status",
            "version__bot_id",
            "version__bot__name",
            "version__bot__is_builtin",
            "version__bot__owner__username",
        )
        .order_by("-rating", "version_id")
    )


def leaderboard_rows(ratings: Iterable[Rating], *, first_rank: int = 1) -> list[Row]:
    """Ratings of leaderboard() as the API and the pages show them, ranked from ``first_rank``:
    rank, version, label, bot, bot_name, owner, version_status, ruleset, rules_version, rating,
    games, provisional, updated_at, and for the pages number and is_builtin."""
    rows = []
    for rank, rating in enumerate(ratings, start=first_rank):
        version = rating.version
        bot = version.bot
        rows.append(
            {
                "rank": rank,
                "version": rating.version_id,
                "label": version_label(bot.name, version.number),
                "bot": version.bot_id,
                "bot_name": bot.name,
                "owner": bot.owner.username,
                "version_status": version.status,
                "ruleset": rating.ruleset,
                "rules_version": rating.rules_version,
                "rating": rating.rating,
                "games": rating.games,
                "provisional": rating.games < PROVISIONAL_GAMES,
                "updated_at": rating.updated_at,
                "number": version.number,
                "is_builtin": bot.is_builtin,
            }
        )
    return rows


def active_leaderboard(ruleset: str, *, limit: int = 50) -> list[Row]:
    """The active versions rated in ``ruleset`` under the current rules, best first (the home
    page's board): leaderboard_rows, each with the games of its finished ranked matches in this
    ruleset (``played``) and the share of them it won (``win_rate``, None before any)."""
    ratings = Rating.objects.filter(
        ruleset=ruleset, rules_version=RULES_VERSION, version__status=BotVersion.Status.ACTIVE
    )
    rows = leaderboard_rows(leaderboard(ratings)[:limit])
    totals = {
        total["version_id"]: total
        for total in MatchEntrant.objects.filter(
            version_id__in=[row["version"] for row in rows],
            match__ranked=True,
            match__status=Match.Status.FINISHED,
            match__ruleset=ruleset,
            match__rules_version=RULES_VERSION,
        )
        .values("version_id")
        .annotate(wins=Sum("wins"), played=Sum("match__games"))
    }
    for row in rows:
        total = totals.get(row["version"], {})
        row["played"] = played = total.get("played") or 0
        row["win_rate"] = (total.get("wins") or 0) / played if played else None
    return rows
