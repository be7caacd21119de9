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

import bisect
import heapq
import random
from collections import Counter

from django.conf import settings
from django.db import connection, transaction

from bots.models import BotVersion
from lineit.engine import RULES_VERSION
from lineit.stats.elo import START_RATING

from ..models import Match, MatchEntrant, Rating
from .matches.states import match_schedule
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
    if missing <= 0:
        return []
    # Plain rows, not model instances: ten thousand versions on the ladder (benchmarks/scale.py).
    versions = dict(BotVersion.objects.on_ladder().order_by().values_list("pk", "bot_id"))
    if len(set(versions.values())) < 2:
        return []
    ratings = {
        version_id: (rating, games)
        for version_id, rating, games in Rating.objects.filter(
            ruleset=ruleset, rules_version=RULES_VERSION, version_id__in=list(versions)
        ).values_list("version_id", "rating", "games")
    }
    load: Counter[int] = Counter(MatchEntrant.objects.filter(match__in=pending).values_list("version_id", flat=True))
    pool = _Pool(versions, ratings, load)
    tables = []
    for _ in range(missing):
        table = pool.table_for(pool.focus(), rng)
        if table is None:
            break
        rng.shuffle(table)
        pool.seated(table)
        tables.append((table, rng.getrandbits(62)))
    chosen = BotVersion.objects.select_related("bot").in_bulk({pk for table, _ in tables for pk in table})
    return [
        match_schedule(
            versions=[chosen[pk] for pk in table],
            games=len(table) * settings.LADDER_DEALS_PER_MATCH,
            ruleset=ruleset,
            seed=seed,
            duplicate_deals=True,
            ranked=True,
            origin=Match.Origin.LADDER,
        )
        for table, seed in tables
    ]


class _Pool:
    """The versions on the ladder, by rating and by games played (counting those scheduled)."""

    def __init__(self, versions: dict[int, int], ratings: dict[int, tuple[float, int]], load: Counter[int]) -> None:
        self.bot_of = versions
        self.rating = {pk: ratings.get(pk, (START_RATING, 0))[0] for pk in versions}
        self.per_match = max(size * settings.LADDER_DEALS_PER_MATCH for size in settings.LADDER_TABLE_SIZES)
        self.played = {pk: ratings.get(pk, (START_RATING, 0))[1] + load[pk] * self.per_match for pk in versions}
        # Fewest games first; among equals, the newest version. Entries go stale as versions are
        # seated; a stale one is dropped when it comes up.
        self.queue = [(played, -pk) for pk, played in self.played.items()]
        heapq.heapify(self.queue)
        self.by_rating = sorted((rating, pk) for pk, rating in self.rating.items())
        self.sorted_ratings = [rating for rating, _ in self.by_rating]
        self.bots = len(set(versions.values()))

    def focus(self) -> int:
        while True:
            played, negative_pk = self.queue[0]
            if self.played[-negative_pk] == played:
                return -negative_pk
            heapq.heappop(self.queue)

    def seated(self, table: list[int]) -> None:
        for pk in table:
            self.played[pk] += self.per_match
            heapq.heappush(self.queue, (self.played[pk], -pk))

    def table_for(self, focus: int, rng: random.Random) -> list[int] | None:
        """The focus and the versions of other bots closest to its rating, each version's distance
        blurred by up to RATING_NOISE: only those within RATING_NOISE of the nearest that could
        fill the table are looked at, as no other can come before them."""
        sizes = [size for size in settings.LADDER_TABLE_SIZES if size <= self.bots]
        if not sizes:
            return None
        size = rng.choice(sizes)
        own = self.rating[focus]
        reach = self._reach(focus, own, size - 1)
        low = bisect.bisect_left(self.sorted_ratings, own - reach - RATING_NOISE)
        high = bisect.bisect_right(self.sorted_ratings, own + reach + RATING_NOISE)
        near = sorted(pk for _, pk in self.by_rating[low:high] if self.bot_of[pk] != self.bot_of[focus])
        near.sort(key=lambda pk: abs(self.rating[pk] - own) + rng.uniform(0, RATING_NOISE))
        table, seated_bots = [focus], {self.bot_of[focus]}
        for pk in near:
            if self.bot_of[pk] not in seated_bots:
                table.append(pk)
                seated_bots.add(self.bot_of[pk])
            if len(table) == size:
                break
        return table

    def _reach(self, focus: int, own: float, wanted: int) -> float:
        """How far from ``own`` the nearest versions of ``wanted`` other bots reach."""
        left = bisect.bisect_left(self.sorted_ratings, own)
        right, bots, reach = left, {self.bot_of[focus]}, 0.0
        left -= 1
        while len(bots) <= wanted and (left >= 0 or right < len(self.by_rating)):
            below = own - self.sorted_ratings[left] if left >= 0 else float("inf")
            above = self.sorted_ratings[right] - own if right < len(self.by_rating) else float("inf")
            if below <= above:
                pk, reach, left = self.by_rating[left][1], below, left - 1
            else:
                pk, reach, right = self.by_rating[right][1], above, right + 1
            bots.add(self.bot_of[pk])
        return reach
