"""Read-only queries about versions that the pages and the API share: their failure health (the
failures of their recent matches, by kind) and their placement's progress. Nothing here writes.

Every reader takes many versions (or bots) at once and costs the same few queries however many
there are: a page never queries per row. A failure's kind, game and decision are public; its
message is not read here at all.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, F, Sum
from django.utils import timezone

from lineit.botkit.failures import PLATFORM_FAULTS
from lineit.engine import RULES_VERSION
from lineit.stats.anchored import AnchoredRating, Table, anchored_rating
from lineit.stats.plackett_luce import BASE_RATING
from tournaments.models import Game, GameFailure, Match, MatchEntrant, Rating, RatingFit

RECENT_FAILURES = 10  # failing games listed, newest first


@dataclass
class FailureHealth:
    """The failures of some versions in the matches they finished since ``since``."""

    since: datetime
    days: int
    matches: int = 0  # finished matches they played
    failing_matches: int = 0  # of those, the ones in which one of them failed
    failures: int = 0
    by_kind: list[tuple[str, int]] = field(default_factory=list)  # most first
    recent: list[dict[str, Any]] = field(default_factory=list)  # the newest failing games

    def to_dict(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "days": self.days,
            "matches": self.matches,
            "failing_matches": self.failing_matches,
            "failures": self.failures,
            "by_kind": dict(self.by_kind),
            "recent": self.recent,
        }


def health_since(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(days=settings.FAILURE_HEALTH_DAYS)


def _recent_failures(version_ids: list[int], since: datetime) -> Any:
    return GameFailure.objects.filter(version_id__in=version_ids, match__finished_at__gte=since).exclude(
        kind__in=PLATFORM_FAULTS
    )


def failure_health(version_ids: Iterable[int], *, now: datetime | None = None) -> FailureHealth:
    """The failure health of these versions together (one version's, or all of a bot's): four
    queries, whatever the number of versions, matches and failures."""
    ids = list(version_ids)
    since = health_since(now)
    health = FailureHealth(since=since, days=settings.FAILURE_HEALTH_DAYS)
    if not ids:
        return health
    failures = _recent_failures(ids, since)
    by_kind = failures.order_by().values("kind").annotate(n=Count("id"))
    health.by_kind = sorted(((row["kind"], row["n"]) for row in by_kind), key=lambda item: (-item[1], item[0]))
    health.failures = sum(count for _, count in health.by_kind)
    if health.failures:
        health.failing_matches = failures.order_by().values("match_id").distinct().count()
        health.recent = list(
            failures.order_by("-match_id", "game__index", "seat").values(
                "match_id", "game_id", "kind", "decision", "seat", "version_id", game_index=F("game__index")
            )[:RECENT_FAILURES]
        )
    health.matches = (
        MatchEntrant.objects.filter(
            version_id__in=ids, match__status=Match.Status.FINISHED, match__finished_at__gte=since
        )
        .order_by()
        .values("match_id")
        .distinct()
        .count()
    )
    return health


def failure_counts(
    *, version_ids: Iterable[int] = (), bot_ids: Iterable[int] = (), now: datetime | None = None
) -> dict[int, dict[str, int]]:
    """Failures by kind since FAILURE_HEALTH_DAYS days, per version (``version_ids``) or per bot
    (``bot_ids``): one grouped query for a whole list."""
    since = health_since(now)
    versions, bots = list(version_ids), list(bot_ids)
    if versions:
        rows = _recent_failures(versions, since).order_by().values_list("version_id", "kind")
    else:
        rows = (
            GameFailure.objects.filter(version__bot_id__in=bots, match__finished_at__gte=since)
            .exclude(kind__in=PLATFORM_FAULTS)
            .order_by()
            .values_list("version__bot_id", "kind")
        )
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    for owner, kind, n in rows.annotate(n=Count("id")):
        counts[owner][kind] = n
    return {owner: dict(sorted(kinds.items(), key=lambda item: (-item[1], item[0]))) for owner, kinds in counts.items()}


@dataclass(frozen=True)
class PlacementProgress:
    games: int  # in the ladder ruleset where it has played fewest
    target: int  # PLACEMENT_GAMES: the most it plays
    half_width: float | None = None  # its widest 95% interval over the ladder rulesets, in Elo
    goal: float = 0.0  # PLACEMENT_INTERVAL_ELO: it ends as soon as every interval is this narrow


def placement_games(version_ids: Iterable[int]) -> dict[int, dict[str, int]]:
    """Each version's rated games in each ladder ruleset (this rules version): the Elo games
    count, plus the games of its finished ranked matches that the rating writer has not applied
    yet (so a writer held back by a long match cannot make placement play on). Two queries."""
    ids = list(version_ids)
    games = {version_id: dict.fromkeys(settings.LADDER_RULESETS, 0) for version_id in ids}
    if not ids:
        return games
    rated = Rating.objects.filter(
        version_id__in=ids, ruleset__in=settings.LADDER_RULESETS, rules_version=RULES_VERSION
    ).values_list("version_id", "ruleset", "games")
    for version_id, ruleset, count in rated:
        games[version_id][ruleset] += count
    unrated = (
        MatchEntrant.objects.filter(
            version_id__in=ids,
            match__ranked=True,
            match__status=Match.Status.FINISHED,
            match__rated_at__isnull=True,
            match__rules_version=RULES_VERSION,
            match__ruleset__in=settings.LADDER_RULESETS,
        )
        .order_by()
        .values_list("version_id", "match__ruleset")
        .annotate(n=Sum("match__games"))
    )
    for version_id, ruleset, count in unrated:
        games[version_id][ruleset] += count or 0
    return games


def placement_intervals(version_ids: Iterable[int]) -> dict[tuple[int, str], float]:
    """The half-width of each version's 95% rating interval by (version id, ladder ruleset): the
    narrower of its whole-history fit's (RatingFit, the latest fit, when it rated the version) and
    its anchored one from the games it has played (lineit.stats.anchored: its strength fitted with
    its opponents' held at their fitted ratings, or their Elo; up to PLACEMENT_READ_GAMES of its
    latest ranked games), so that placement can stop as soon as its games say enough, between two
    whole-history fits. Five queries."""
    ids = list(version_ids)
    if not ids:
        return {}
    fits = RatingFit.objects.filter(
        version_id__in=ids, ruleset__in=settings.LADDER_RULESETS, rules_version=RULES_VERSION
    ).values_list("version_id", "ruleset", "low", "high")
    widths = {(version_id, ruleset): (high - low) / 2 for version_id, ruleset, low, high in fits}
    for key, anchored in _anchored(ids).items():
        widths[key] = min(widths.get(key, anchored.half_width), anchored.half_width)
    return widths


PLACEMENT_READ_GAMES = 2000


def _anchored(ids: list[int]) -> dict[tuple[int, str], AnchoredRating]:
    entered = (
        MatchEntrant.objects.filter(
            version_id__in=ids,
            match__ranked=True,
            match__status=Match.Status.FINISHED,
            match__rules_version=RULES_VERSION,
            match__ruleset__in=settings.LADDER_RULESETS,
        )
        .order_by("-match_id")
        .values_list("match_id", "index", "version_id")[: PLACEMENT_READ_GAMES * len(ids)]
    )
    subject = {match_id: (index, version_id) for match_id, index, version_id in entered}
    if not subject:
        return {}
    seated = MatchEntrant.objects.filter(match_id__in=subject).values_list("match_id", "index", "version_id")
    entrants: dict[int, dict[int, int]] = defaultdict(dict)
    for match_id, index, version_id in seated:
        entrants[match_id][index] = version_id
    opponents = {version for seats in entrants.values() for version in seats.values()}
    strength: dict[tuple[int, str], float] = {
        (version_id, ruleset): rating
        for version_id, ruleset, rating in Rating.objects.filter(
            version_id__in=opponents, rules_version=RULES_VERSION
        ).values_list("version_id", "ruleset", "rating")
    }
    strength.update(
        ((version_id, ruleset), rating)
        for version_id, ruleset, rating in RatingFit.objects.filter(
            version_id__in=opponents, rules_version=RULES_VERSION
        ).values_list("version_id", "ruleset", "rating")
    )
    tables: dict[tuple[int, str], list[Table]] = defaultdict(list)
    games = Game.objects.filter(match_id__in=subject).values_list("match_id", "seats", "ranks", "match__ruleset")
    for match_id, seats, ranks, ruleset in games.iterator(chunk_size=2000):
        index, version_id = subject[match_id]
        versions = [entrants[match_id][entrant] for entrant in seats]
        ratings = [strength.get((version, ruleset), BASE_RATING) for version in versions]
        tables[(version_id, ruleset)].append(Table(ratings=ratings, ranks=ranks, subject=list(seats).index(index)))
    return {key: anchored_rating(found) for key, found in tables.items()}


def placement_progress(versions: Iterable[Any]) -> dict[int, PlacementProgress]:
    """The progress of those of ``versions`` still in placement (BotVersion.in_placement), by id."""
    placing = [version.pk for version in versions if version.in_placement]
    widths = placement_intervals(placing) if placing else {}
    progress = {}
    for version_id, by_ruleset in placement_games(placing).items():
        known = [widths.get((version_id, ruleset)) for ruleset in by_ruleset]
        progress[version_id] = PlacementProgress(
            games=min(by_ruleset.values(), default=0),
            target=settings.PLACEMENT_GAMES,
            half_width=None if None in known or not known else max(w for w in known if w is not None),
            goal=settings.PLACEMENT_INTERVAL_ELO,
        )
    return progress
