"""Read-only queries behind the pages. Nothing here writes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Count, Prefetch, QuerySet, Sum

from bots.models import Bot, BotVersion
from lineit.engine import RULES_VERSION, RULESETS
from lineit.stats.elo import PROVISIONAL_GAMES
from tournaments.models import Match, MatchEntrant, Rating, RatingEvent


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    version: BotVersion
    rating: float
    games: int
    wins: int
    played: int  # games in finished ranked matches (for the win rate)

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.played if self.played else None


def leaderboard(ruleset: str, *, limit: int = 50) -> list[LeaderboardRow]:
    """Active versions rated in ``ruleset`` under the current rules, best first."""
    ratings = list(
        Rating.objects.filter(ruleset=ruleset, rules_version=RULES_VERSION, version__status=BotVersion.Status.ACTIVE)
        .select_related("version__bot")
        .order_by("-rating", "version_id")[:limit]
    )
    totals = {
        row["version_id"]: row
        for row in MatchEntrant.objects.filter(
            version_id__in=[rating.version_id for rating in ratings],
            match__ranked=True,
            match__status=Match.Status.FINISHED,
            match__ruleset=ruleset,
            match__rules_version=RULES_VERSION,
        )
        .values("version_id")
        .annotate(wins=Sum("wins"), played=Sum("match__games"))
    }
    return [
        LeaderboardRow(
            rank=position,
            version=rating.version,
            rating=rating.rating,
            games=rating.games,
            wins=totals.get(rating.version_id, {}).get("wins") or 0,
            played=totals.get(rating.version_id, {}).get("played") or 0,
        )
        for position, rating in enumerate(ratings, start=1)
    ]


def leaderboards() -> list[tuple[str, list[LeaderboardRow]]]:
    return [(ruleset, leaderboard(ruleset)) for ruleset in RULESETS]


def matches_with_entrants(matches: QuerySet[Match]) -> QuerySet[Match]:
    entrants = MatchEntrant.objects.select_related("version__bot").order_by("index")
    return matches.prefetch_related(Prefetch("entrants", queryset=entrants))


def recent_matches(*, limit: int = 15, bot: Bot | None = None) -> list[Match]:
    matches = Match.objects.all()
    if bot is not None:
        matches = matches.filter(entrants__version__bot=bot).distinct()
    return list(matches_with_entrants(matches.order_by("-id"))[:limit])


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
    return [series[key] for key in sorted(series)]


def playable_versions(*, exclude_bot: Bot | None = None) -> QuerySet[BotVersion]:
    """Versions that may be chosen as opponents in a test match: the active ones."""
    versions = BotVersion.objects.active().select_related("bot").order_by("bot__name", "-number")
    if exclude_bot is not None:
        versions = versions.exclude(bot=exclude_bot)
    return versions


def games_by_seat(match: Match, entrants: Iterable[MatchEntrant]) -> list[dict[str, object]]:
    """Each game of a match, with a row per seat: who sat there, score, rank, forfeit."""
    by_index = {entrant.index: entrant for entrant in entrants}
    rows = []
    for game in match.game_logs.order_by("index").only("id", "index", "deal", "seats", "scores", "ranks", "forfeits"):
        seats = [
            {
                "seat": seat,
                "entrant": by_index.get(entrant),
                "score": game.scores[seat],
                "rank": game.ranks[seat],
                "forfeit": seat in (game.forfeits or []),
            }
            for seat, entrant in enumerate(game.seats)
        ]
        rows.append({"game": game, "seats": seats})
    return rows


def versions_by_owner(user: object) -> dict[int, list[BotVersion]]:
    versions: dict[int, list[BotVersion]] = defaultdict(list)
    for version in BotVersion.objects.filter(bot__owner=user).order_by("bot_id", "-number"):
        versions[version.bot_id].append(version)
    return versions
