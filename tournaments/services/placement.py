"""Placement: a new version's first rated games, played in a burst before it joins the ladder.

Validation starts it (bots.services.bot_version_activate); the ladder tick (services/ladder.py)
calls ``placement_schedule`` first, under the tick's lock. Each version in placement plays one
placement match at a time: rated, duplicate deals with seats rotated, on the interactive queue
(Match.Origin.PLACEMENT, services/matches/states.py: match_queue), against opponents of other bots
spread around its expected rating (its bot's previous version's rating, else the median of the
ladder). At most PLACEMENT_MAX_MATCHES placement matches are pending at once on the whole
platform, so a burst of uploads cannot take every worker from the ladder. The placement ends when
the rating is settled in every ladder ruleset (``placement_settled``); the ladder schedules the
version only then.
"""

from __future__ import annotations

import random
import statistics

from django.conf import settings

from bots.models import BotVersion
from bots.services import bot_version_placement_end
from lineit.engine import RULES_VERSION
from lineit.stats.elo import START_RATING

from ..models import Match, MatchEntrant, Rating
from ..selectors.versions import placement_games, placement_intervals
from .matches.states import match_schedule

# Where the opponents of successive seats sit, in PLACEMENT_SPREAD_ELO from the expected rating:
# level, above, below, then half-way, so a burst meets stronger and weaker bots alike.
SPREAD_PATTERN = (0.0, 1.0, -1.0, 0.5, -0.5)


def placement_settled(*, games: int, half_width: float | None) -> bool:
    """Whether a version's rating in a ruleset is settled: a 95% interval no wider than
    PLACEMENT_INTERVAL_ELO on either side (the narrower of its whole-history fit's and the one
    its own games give with its opponents' ratings held: selectors/versions.py
    placement_intervals), or at most PLACEMENT_GAMES rated games (the Elo games count, with its
    finished matches not yet rated)."""
    if games >= settings.PLACEMENT_GAMES:
        return True
    return half_width is not None and half_width <= settings.PLACEMENT_INTERVAL_ELO


def placement_schedule(*, rng: random.Random) -> list[Match]:
    """End the placement of every version whose rating is settled, and schedule one placement
    match for each other version in placement that has none pending, fewest games first, within
    the cap. Call it under the ladder tick's lock (services/ladder.py: ladder_tick)."""
    waiting = list(
        BotVersion.objects.active()
        .in_placement()
        .filter(ladder_removed_at__isnull=True)
        .select_related("bot")
        .order_by("placement_started_at", "id")
    )
    if not waiting:
        return []
    pending = Match.objects.pending().filter(origin=Match.Origin.PLACEMENT)
    busy = set(MatchEntrant.objects.filter(match__in=pending).values_list("version_id", flat=True))
    free = settings.PLACEMENT_MAX_MATCHES - pending.count()
    games = placement_games([version.pk for version in waiting])
    intervals = placement_intervals([version.pk for version in waiting])
    # Fewest games first (the cap shares the placement out), among equals the oldest placement.
    waiting.sort(key=lambda version: min(games[version.pk].values(), default=0))
    scheduled: list[Match] = []
    for version in waiting:
        if version.pk in busy:
            continue  # its placement match is pending: settled or not, it is judged after it
        played = games[version.pk]
        unsettled = [
            ruleset
            for ruleset in settings.LADDER_RULESETS
            if not placement_settled(games=played[ruleset], half_width=intervals.get((version.pk, ruleset)))
        ]
        if not unsettled:
            bot_version_placement_end(version=version)
            continue
        if free <= 0:
            continue
        ruleset = min(unsettled, key=lambda name: played[name])
        table = _placement_table(version, ruleset, rng, busy)
        if table is None:
            continue
        rng.shuffle(table)
        scheduled.append(
            match_schedule(
                versions=table,
                games=len(table) * settings.PLACEMENT_DEALS_PER_MATCH,
                ruleset=ruleset,
                seed=rng.getrandbits(62),
                duplicate_deals=True,
                rotate_seats=True,
                ranked=True,
                origin=Match.Origin.PLACEMENT,
            )
        )
        busy.update(seated.pk for seated in table)
        free -= 1
    return scheduled


def _opponents(version: BotVersion, busy: set[int]) -> list[BotVersion]:
    """The versions of other bots it may meet: those on the ladder; when there are none (a new
    platform: every version is new), the other versions in placement that are free."""
    others = BotVersion.objects.exclude(bot_id=version.bot_id).select_related("bot").order_by("id")
    settled = list(others.on_ladder())
    if settled:
        return settled
    return [
        other for other in others.active().in_placement().filter(ladder_removed_at__isnull=True) if other.pk not in busy
    ]


def expected_rating(version: BotVersion, ruleset: str, ratings: dict[int, float]) -> float:
    """Where the version is expected to land: its bot's latest earlier rated version's rating,
    else the median of ``ratings`` (its possible opponents'), else the start rating."""
    previous = (
        Rating.objects.filter(
            version__bot_id=version.bot_id,
            version__number__lt=version.number,
            ruleset=ruleset,
            rules_version=RULES_VERSION,
        )
        .order_by("-version__number")
        .values_list("rating", flat=True)
        .first()
    )
    if previous is not None:
        return previous
    return statistics.median(ratings.values()) if ratings else START_RATING


def _placement_table(version: BotVersion, ruleset: str, rng: random.Random, busy: set[int]) -> list[BotVersion] | None:
    opponents = _opponents(version, busy)
    bots = {opponent.bot_id for opponent in opponents}
    sizes = [size for size in settings.LADDER_TABLE_SIZES if size - 1 <= len(bots)]
    if not sizes:
        return None
    size = rng.choice(sizes)
    ratings = dict(
        Rating.objects.filter(version__in=opponents, ruleset=ruleset, rules_version=RULES_VERSION).values_list(
            "version_id", "rating"
        )
    )
    expected = expected_rating(version, ruleset, ratings)
    earlier = Match.objects.filter(origin=Match.Origin.PLACEMENT).played_by_version(version.pk).count()
    table = [version]
    seated_bots = {version.bot_id}
    for seat in range(size - 1):
        step = SPREAD_PATTERN[(earlier * (size - 1) + seat) % len(SPREAD_PATTERN)]
        target = expected + step * settings.PLACEMENT_SPREAD_ELO
        free = [opponent for opponent in opponents if opponent.bot_id not in seated_bots]
        chosen = min(free, key=lambda opponent: (abs(ratings.get(opponent.pk, START_RATING) - target), rng.random()))
        table.append(chosen)
        seated_bots.add(chosen.bot_id)
    return table
