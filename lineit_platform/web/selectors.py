"""Read-only queries of the pages alone (a bot's versions and rating history, the versions a test
match may seat). Nothing here writes. What the pages show as the API does (leaderboards, lists of
matches, a match) is read by tournaments/selectors/, the readers both share."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, QuerySet

from bots.models import Bot, BotVersion
from lineit.engine import RULES_VERSION
from tournaments.models import RatingEvent, RatingFit


def bot_versions(bot: Bot) -> list[BotVersion]:
    return list(
        bot.versions.order_by("-number").annotate(
            ranked_entries=Count("entries", distinct=True),
        )
    )


@dataclass
class RatingSeries:
    label: str
    ruleset: str
    points: list[float] = field(default_factory=list)  # the rating after each rated game
    band: tuple[float, float, float] | None = None  # the whole-history fit now: rating, low, high


def rating_history(bot: Bot, *, rules_version: str = RULES_VERSION) -> list[RatingSeries]:
    """One series per version and ruleset: the start rating, then the rating after each game."""
    series: dict[tuple[int, str], RatingSeries] = {}
    events = (
        RatingEvent.objects.filter(version__bot=bot, rules_version=rules_version)
        .order_by("id")
        .values_list("version__number", "ruleset", "before", "after")
    )
    for number, ruleset, before, after in events.iterator(chunk_size=2000):
        key = (number, ruleset)
        if key not in series:
            series[key] = RatingSeries(label=f"v{number} {ruleset}", ruleset=ruleset, points=[before])
        series[key].points.append(after)
    fits = RatingFit.objects.filter(version__bot=bot, rules_version=rules_version).values_list(
        "version__number", "ruleset", "rating", "low", "high"
    )
    for number, ruleset, rating, low, high in fits:
        if (number, ruleset) in series:
            series[number, ruleset].band = (rating, low, high)
    return [series[key] for key in sorted(series)]


def playable_versions(*, exclude_bot: Bot | None = None) -> QuerySet[BotVersion]:
    """Versions that may be chosen as opponents in a test match: the active ones."""
    versions = BotVersion.objects.active().select_related("bot").order_by("bot__name", "-number")
    if exclude_bot is not None:
        versions = versions.exclude(bot=exclude_bot)
    return versions


def versions_by_owner(user: object) -> dict[int, list[BotVersion]]:
    versions: dict[int, list[BotVersion]] = defaultdict(list)
    for version in BotVersion.objects.filter(bot__owner=user).order_by("bot_id", "-number"):
        versions[version.bot_id].append(version)
    return versions
