"""Read-only queries of the ratings domain, shared by the API and the pages. Nothing here writes.

The leaderboard is read one way (``leaderboard``: the ratings of one ruleset and rules version,
best first, for filtering and paging) and built once (``leaderboard_rows``: what a row shows), as
plain data that the API's serializer picks its declared fields from and the home page shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import F, FilteredRelation, Q, QuerySet, Sum

from bots.models import BotVersion, version_label
from lineit.engine import RULES_VERSION
from lineit.stats.elo import PROVISIONAL_GAMES
from tournaments.models import Match, MatchEntrant, Rating

Row = dict[str, Any]


# What a leaderboard row reads: the rating's columns and its version's, bot's and owner's, as
# plain values (a page of model instances with their three related ones cost 60% more CPU), under
# the names a row gives them. Plain field paths, not annotations: counted, an annotated query is
# wrapped in a subquery. The queryset is made once (resolving its columns was a fifth of the
# request) and cloned by every read; it is never evaluated itself.
LEADERBOARD_COLUMNS = {
    "version_id": "version",
    "ruleset": "ruleset",
    "rules_version": "rules_version",
    "rating": "rating",
    "games": "games",
    "updated_at": "updated_at",
    "version__number": "number",
    "version__status": "version_status",
    "version__bot_id": "bot",
    "version__bot__name": "bot_name",
    "version__bot__is_builtin": "is_builtin",
    "version__bot__owner__username": "owner",
    # The whole-history fit of the same version, ruleset and rules version, if it has one: a left
    # join on RatingFit's unique key (services/ratings_fit.py writes it).
    "fit__rating": "fit_rating",
    "fit__low": "fit_low",
    "fit__high": "fit_high",
    "fit__rank_best": "fit_rank_best",
    "fit__rank_worst": "fit_rank_worst",
    "fit__fitted_at": "fitted_at",
}
_WITH_FIT = Rating.objects.alias(
    fit=FilteredRelation(
        "version__rating_fits",
        condition=Q(version__rating_fits__ruleset=F("ruleset"), version__rating_fits__rules_version=F("rules_version")),
    )
)
_LEADERBOARD = _WITH_FIT.order_by("-rating", "version_id").values(*LEADERBOARD_COLUMNS)
# Ordered by the conservative estimate: the low end of the fit's interval, best first; versions
# without a fit after every fitted one, by Elo.
CONSERVATIVE_ORDER = (F("fit__low").desc(nulls_last=True), "-rating", "version_id")
_CONSERVATIVE = _WITH_FIT.order_by(*CONSERVATIVE_ORDER).values(*LEADERBOARD_COLUMNS)


def leaderboard(order: str = "elo") -> QuerySet[Rating]:
    """Ratings best first, ties by version, as rows of what a row shows
    of them and their versions, for filtering and paging; leaderboard_rows builds them. Counted
    (a numbered page), it joins the versions, bots and owners as the page does: 0.5 ms of the
    database's time for 1,000 ratings. ``order``: "elo" (the live rating) or "conservative" (the
    low end of the whole-history fit's interval)."""
    return (_CONSERVATIVE if order == "conservative" else _LEADERBOARD).all()


def leaderboard_rows(ratings: Iterable[Row], *, first_rank: int = 1) -> list[Row]:
    """Rows of leaderboard() as the API and the pages show them, ranked from ``first_rank``:
    rank, version, label, bot, bot_name, owner, version_status, ruleset, rules_version, rating,
    games, provisional, updated_at, and for the pages number and is_builtin."""
    rows = []
    for rank, read in enumerate(ratings, start=first_rank):
        row = {name: read[column] for column, name in LEADERBOARD_COLUMNS.items()}
        row["rank"] = rank
        row["label"] = version_label(row["bot_name"], row["number"])
        row["provisional"] = row["games"] < PROVISIONAL_GAMES
        row["fit"] = fit_of(row)
        rows.append(row)
    return rows


def fit_of(row: Row) -> Row | None:
    """A row's whole-history fit: rating, its 95% interval [low, high], the ranks that interval
    allows among the versions fitted with it (``ranks``: [best, worst]; two versions overlap when
    their ranges do) and when it was fitted; None without one."""
    if row["fit_rating"] is None:
        return None
    return {
        "rating": row["fit_rating"],
        "low": row["fit_low"],
        "high": row["fit_high"],
        "ranks": [row["fit_rank_best"], row["fit_rank_worst"]],
        "fitted_at": row["fitted_at"],
    }


def active_leaderboard(ruleset: str, *, limit: int = 50, order: str = "elo") -> list[Row]:
    """The active versions rated in ``ruleset`` under the current rules, best first (the home
    page's board): leaderboard_rows, each with the games of its finished ranked matches in this
    ruleset (``played``) and the share of them it won (``win_rate``, None before any), and
    ``overlaps_next``: whether its fitted interval overlaps the next row's."""
    ratings = leaderboard(order).filter(
        ruleset=ruleset, rules_version=RULES_VERSION, version__status=BotVersion.Status.ACTIVE
    )
    rows = leaderboard_rows(ratings[:limit])
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
    for index, row in enumerate(rows):
        mine, after = row["fit"], rows[index + 1]["fit"] if index + 1 < len(rows) else None
        row["overlaps_next"] = bool(mine and after and mine["low"] <= after["high"] and after["low"] <= mine["high"])
    return rows
