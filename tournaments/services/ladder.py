"""The ladder: keep every active version playing rated matches.

Each tick tops the queue up to LADDER_PENDING_TARGET ladder matches per ruleset. The version with
the fewest rated games (counting those already scheduled) plays next, so new versions go first;
its opponents are the versions of other bots closest in rating, with a little noise so pairings
vary. Table sizes are drawn from LADDER_TABLE_SIZES; every match is a set of duplicate deals.

The ladder schedules only the versions on it (BotVersion.objects.on_ladder): active, not taken off
it for failing (docs/platform.md, "Failure health"), their placement over. Each tick first runs
the placement (services/placement.py), whose matches are counted apart. One tick at a time: beat
sends one every LADDER_INTERVAL_SECONDS, and a validation or a placement match that ends sends
one more, so a tick takes a lock (on PostgreSQL) for its whole transaction.
"""

from __future__ import annotations

import random
from collections import Counter

from django.conf import settings
from django.db import connection, transaction

from bots.models import BotVersion
from lineit.engine import RULES_VERSION
from lineit.stats.elo import START_RATING

from ..models import Match, MatchEntrant, Rating
from .matches import match_schedule
from .placement import placement_schedule

RATING_NOISE = 100.0  # Elo points of random jitter when choosing opponents
TICK_LOCK = 0x4C414444  # the ladder tick's advisory lock ("LADD")


def _lock_tick() -> None:
    """Wait for any other tick's transaction to end (SQLite runs one writer at a time anyway)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [TICK_LOCK])


@transaction.atomic
def ladder_tick(*, rng: random.Random | None = None) -> list[Match]:
    if not settings.LADDER_ENABLED:
        return []
    rng = rng or random.Random()
    _lock_tick()
    scheduled = placement_schedule(rng=rng)
    for ruleset in settings.LADDER_RULESETS:
        scheduled += _top_up(ruleset, rng)
    return scheduled


def _top_up(ruleset: str, rng: random.Random) -> list[Match]:
    pending = Match.objects.pending().filter(origin=Match.Origin.LADDER, ruleset=ruleset)
    missing = settings.LADDER_PENDING_TARGET - pending.count()
    versions = list(BotVersion.objects.on_ladder().select_related("bot").order_by("id"))
    if missing <= 0 or len({version.bot_id for version in versions}) < 2:
        return []
    ratings = {
        rating.version_id: (rating.rating, rating.games)
        for rating in Rating.objects.filter(ruleset=ruleset, rules_version=RULES_VERSION)
    }
    load: Counter[int] = Counter(MatchEntrant.objects.filter(match__in=pending).values_list("version_id", flat=True))
    per_match = {size: size * settings.LADDER_DEALS_PER_MATCH for size in settings.LADDER_TABLE_SIZES}
    scheduled = []
    for _ in range(missing):
        played = {
            v.pk: ratings.get(v.pk, (START_RATING, 0))[1] + load[v.pk] * max(per_match.values()) for v in versions
        }
        # Fewest games first; among equals, the newest version.
        focus = min(versions, key=lambda v: (played[v.pk], -v.pk))
        table = _table_for(focus, versions, ratings, rng)
        if table is None:
            break
        rng.shuffle(table)
        match = match_schedule(
            versions=table,
            games=len(table) * settings.LADDER_DEALS_PER_MATCH,
            ruleset=ruleset,
            seed=rng.getrandbits(62),
            duplicate_deals=True,
            ranked=True,
            origin=Match.Origin.LADDER,
        )
        load.update(v.pk for v in table)
        scheduled.append(match)
    return scheduled


def _table_for(
    focus: BotVersion, versions: list[BotVersion], ratings: dict[int, tuple[float, int]], rng: random.Random
) -> list[BotVersion] | None:
    bots = {version.bot_id for version in versions}
    sizes = [size for size in settings.LADDER_TABLE_SIZES if size <= len(bots)]
    if not sizes:
        return None
    size = rng.choice(sizes)
    own = ratings.get(focus.pk, (START_RATING, 0))[0]
    others = [version for version in versions if version.bot_id != focus.bot_id]
    others.sort(key=lambda v: abs(ratings.get(v.pk, (START_RATING, 0))[0] - own) + rng.uniform(0, RATING_NOISE))
    table = [focus]
    seated_bots = {focus.bot_id}
    for version in others:
        if version.bot_id not in seated_bots:
            table.append(version)
            seated_bots.add(version.bot_id)
        if len(table) == size:
            break
    return table
