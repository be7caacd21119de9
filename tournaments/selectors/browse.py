"""Read-only queries behind the browsing pages (lineit_platform/web/views/browse.py): the bot list,
a user's matches and the full leaderboard's extra columns. Nothing here writes; the lists of
matches and ratings themselves are matches.py's and ratings.py's reads (and a version's
head-to-head record matches.py's, as a bot's), filtered and paged by the pages."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import Exists, Max, OuterRef, QuerySet, Subquery, Sum
from django.utils import timezone

from bots.models import Bot, BotVersion
from lineit.engine import RULES_VERSION
from tournaments.models import Match, MatchEntrant, Rating, RatingEvent

Row = dict[str, Any]
RECENT_DAYS = 7  # a leaderboard row's "recent change": the sum of its rating's moves in these days


# --- Bots -------------------------------------------------------------------------------------


def bot_list(*, ruleset: str) -> QuerySet[Bot]:
    """Bots by name, as rows: id, name, is_builtin, created_at, owner (a username), the newest
    active version's number (``active_number``, None without one) and its rating in ``ruleset``
    under the current rules (``rating``, ``rated_games``: None before any). One query a page."""
    active = BotVersion.objects.filter(bot=OuterRef("pk"), status=BotVersion.Status.ACTIVE).order_by("-number")
    # Nested one level down, the bot is the outer query's outer row.
    newest_active = BotVersion.objects.filter(bot=OuterRef(OuterRef("pk")), status=BotVersion.Status.ACTIVE).order_by(
        "-number"
    )
    rating = Rating.objects.filter(
        version=Subquery(newest_active.values("pk")[:1]), ruleset=ruleset, rules_version=RULES_VERSION
    )
    return (
        Bot.objects.order_by("name")
        .annotate(
            active_number=Subquery(active.values("number")[:1]),
            rating=Subquery(rating.values("rating")[:1]),
            rated_games=Subquery(rating.values("games")[:1]),
        )
        .values("id", "name", "is_builtin", "created_at", "owner__username", "active_number", "rating", "rated_games")
    )


# --- Matches ----------------------------------------------------------------------------------


def matches_of_owner(matches: QuerySet[Match], owner_id: int) -> QuerySet[Match]:
    """The matches in which a bot of this user played."""
    entrants = MatchEntrant.objects.filter(version__bot__owner_id=owner_id).order_by().values("match_id")
    return matches.filter(pk__in=Subquery(entrants))


# --- The leaderboard --------------------------------------------------------------------------


def played_at_size(ratings: QuerySet[Rating], *, ruleset: str, players: int) -> QuerySet[Rating]:
    """The ratings of versions that played a finished ranked match of ``players`` seats in
    ``ruleset`` under the current rules. An EXISTS per rating, which stops at the version's
    first such match (by the entrants' version index): counted over 100,000 matches, 189 ms
    against 247 ms as a semi-join over every entrant at that table size (interleaved). A version
    that never played at that size still reads all its entrants: a per-size summary written by
    the services would make this a lookup."""
    entrants = MatchEntrant.objects.filter(
        version_id=OuterRef("version_id"),
        match__num_players=players,
        match__ranked=True,
        match__status=Match.Status.FINISHED,
        match__ruleset=ruleset,
        match__rules_version=RULES_VERSION,
    ).order_by()
    return ratings.filter(Exists(entrants))


def leaderboard_extras(rows: list[Row], *, ruleset: str, players: int | None) -> None:
    """Adds to leaderboard_rows' rows the games of their finished ranked matches in ``ruleset``
    (at ``players`` seats if given: ``played``), the share won (``win_rate``), when they last
    played (``last_played``) and their rating's move in the last RECENT_DAYS days
    (``recent_change``, None without one). Two queries, whatever the number of rows."""
    versions = [row["version"] for row in rows]
    entrants = MatchEntrant.objects.filter(
        version_id__in=versions,
        match__ranked=True,
        match__status=Match.Status.FINISHED,
        match__ruleset=ruleset,
        match__rules_version=RULES_VERSION,
    )
    if players is not None:
        entrants = entrants.filter(match__num_players=players)
    totals = {
        total["version_id"]: total
        for total in entrants.order_by()
        .values("version_id")
        .annotate(wins=Sum("wins"), played=Sum("match__games"), last=Max("match__finished_at"))
    }
    since = timezone.now() - timedelta(days=RECENT_DAYS)
    changes = dict(
        RatingEvent.objects.filter(
            version_id__in=versions, ruleset=ruleset, rules_version=RULES_VERSION, created_at__gte=since
        )
        .order_by()
        .values("version_id")
        .annotate(change=Sum("delta"))
        .values_list("version_id", "change")
    )
    for row in rows:
        total = totals.get(row["version"], {})
        row["played"] = played = total.get("played") or 0
        row["win_rate"] = (total.get("wins") or 0) / played if played else None
        row["last_played"] = total.get("last")
        row["recent_change"] = changes.get(row["version"])
