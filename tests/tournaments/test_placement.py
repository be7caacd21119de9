"""Placement: a newly validated version plays a burst of rated matches (duplicate deals, seats
rotated, on the interactive queue) against opponents around its expected rating, one at a time,
at most PLACEMENT_MAX_MATCHES on the platform, until its rating is settled; the ladder schedules
it only then. Real PostgreSQL and Redis, sandboxed games of real tiny bots."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from django.test import override_settings
from django.utils import timezone

from bots.models import BotVersion
from bots.services import bot_create, bot_version_upload, bot_version_validate
from lineit.engine import RULES_VERSION
from lineit_platform.queueing import HOUSEKEEPING, INTERACTIVE
from tournaments.models import Match, MatchEntrant, Rating, RatingFit, RatingFitRun
from tournaments.services.ladder import ladder_tick
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_cancel, match_queue

pytestmark = pytest.mark.django_db

RANDOM_BOT = (Path(__file__).resolve().parents[2] / "lineit" / "builtin" / "random_bot.py").read_bytes()

PLACEMENT = {
    "LADDER_TABLE_SIZES": [2],
    "LADDER_PENDING_TARGET": 0,
    "PLACEMENT_DEALS_PER_MATCH": 1,
    "PLACEMENT_SPREAD_ELO": 150.0,
}


def placing(version_factory, **fields) -> BotVersion:  # type: ignore[no-untyped-def]
    return version_factory(placement_started_at=timezone.now(), **fields)


def rated(version: BotVersion, rating: float, games: int = 50) -> BotVersion:
    Rating.objects.create(version=version, ruleset="standard", rules_version=RULES_VERSION, rating=rating, games=games)
    return version


def placement_matches() -> list[Match]:
    return list(Match.objects.filter(origin=Match.Origin.PLACEMENT).order_by("id"))


def opponent_of(match: Match, version: BotVersion) -> int:
    (other,) = MatchEntrant.objects.filter(match=match).exclude(version=version).values_list("version_id", flat=True)
    return other


def test_validation_starts_the_placement_and_sends_the_tick_at_once(
    broker, alice, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    bot = bot_create(owner=alice, name="newcomer")
    with django_capture_on_commit_callbacks(execute=True):
        version = bot_version_upload(bot=bot, uploaded_by=alice, filename="bot.py", content=RANDOM_BOT)
    broker.delete(INTERACTIVE)  # the validation's own message
    with django_capture_on_commit_callbacks(execute=True):
        version = bot_version_validate(version_id=version.pk)  # in the sandbox
    assert version.status == "active" and version.in_placement and not version.on_ladder
    sent = broker.lrange(HOUSEKEEPING, 0, -1)
    assert sum(b"tournaments.tasks.ladder_tick" in message for message in sent) == 1  # type: ignore[union-attr]


@override_settings(**PLACEMENT, PLACEMENT_GAMES=100, PLACEMENT_MAX_MATCHES=3)
def test_placement_matches_meet_opponents_spread_around_the_previous_versions_rating(
    alice, bot_factory, version_factory
) -> None:  # type: ignore[no-untyped-def]
    veterans = {rating: rated(version_factory(), rating) for rating in (1100.0, 1300.0, 1500.0, 1700.0, 1900.0)}
    bot = bot_factory(owner=alice)
    rated(version_factory(bot=bot, number=1, status="retired"), 1700.0)
    newcomer = placing(version_factory, bot=bot, number=2)

    met = []
    for tick in range(3):
        (match,) = ladder_tick(rng=random.Random(tick))
        assert match.origin == "placement" and match.ranked and match.duplicate_deals and match.rotate_seats
        assert match_queue(match.origin) == INTERACTIVE and match.games == 2
        assert ladder_tick(rng=random.Random(10 + tick)) == []  # never two at once for one version
        met.append(opponent_of(match, newcomer))
        match_cancel(match=match)
    # level with 1700, then 150 above (1850: 1900 is closest), then 150 below (1550: 1500)
    assert met == [veterans[1700.0].pk, veterans[1900.0].pk, veterans[1500.0].pk]


@override_settings(**PLACEMENT, PLACEMENT_GAMES=100)
def test_a_first_version_is_expected_at_the_median(version_factory) -> None:  # type: ignore[no-untyped-def]
    veterans = {rating: rated(version_factory(), rating) for rating in (1100.0, 1250.0, 1600.0, 1900.0, 2000.0)}
    newcomer = placing(version_factory)
    (match,) = ladder_tick(rng=random.Random(0))
    assert opponent_of(match, newcomer) == veterans[1600.0].pk


@override_settings(**PLACEMENT, PLACEMENT_GAMES=100, PLACEMENT_MAX_MATCHES=2)
def test_never_more_placement_matches_than_the_cap_fewest_games_first(version_factory) -> None:  # type: ignore[no-untyped-def]
    for rating in (1400.0, 1600.0):
        rated(version_factory(), rating)
    first, second, third = (placing(version_factory) for _ in range(3))
    scheduled = ladder_tick(rng=random.Random(1))
    assert len(scheduled) == 2 and Match.objects.pending().filter(origin="placement").count() == 2
    seated = set(MatchEntrant.objects.filter(match__in=scheduled).values_list("version_id", flat=True))
    assert {first.pk, second.pk} <= seated and third.pk not in seated
    assert ladder_tick(rng=random.Random(2)) == []
    played = match_execute(match_id=scheduled[0].pk, worker="test")  # in the sandbox: two games
    assert played is not None and played.status == "finished"
    (later,) = ladder_tick(rng=random.Random(3))  # the one with fewest games (none) goes next
    assert third.pk in set(later.entrants.values_list("version_id", flat=True))
    assert Match.objects.pending().filter(origin="placement").count() == 2


@override_settings(**{**PLACEMENT, "LADDER_PENDING_TARGET": 1}, PLACEMENT_GAMES=4)
def test_placement_plays_until_settled_then_the_version_joins_the_ladder(version_factory) -> None:  # type: ignore[no-untyped-def]
    veteran = rated(version_factory(), 1500.0)
    newcomer = placing(version_factory)
    for _ in range(2):  # two games a match: two matches for four games
        scheduled = ladder_tick(rng=random.Random(5))
        assert [match.origin for match in scheduled] == ["placement"]  # the ladder waits: one bot on it
        played = match_execute(match_id=scheduled[0].pk, worker="test")  # in the sandbox
        assert played is not None and played.status == "finished"
    assert Rating.objects.get(version=newcomer).games == 4

    scheduled = ladder_tick(rng=random.Random(6))
    newcomer.refresh_from_db()
    assert newcomer.placement_ended_at is not None and newcomer.on_ladder
    assert [match.origin for match in scheduled] == ["ladder"]
    assert set(scheduled[0].entrants.values_list("version_id", flat=True)) == {newcomer.pk, veteran.pk}
    assert len(placement_matches()) == 2


@override_settings(**PLACEMENT, PLACEMENT_GAMES=1000, PLACEMENT_INTERVAL_ELO=50.0)
def test_a_narrow_whole_history_interval_settles_it_sooner(version_factory) -> None:  # type: ignore[no-untyped-def]
    rated(version_factory(), 1500.0)
    newcomer = rated(placing(version_factory), 1520.0, games=40)
    run = RatingFitRun.objects.create(
        ruleset="standard", rules_version=RULES_VERSION, fitted_at=timezone.now(), games=40, versions=2,
        interval="curvature", seconds=0.1,
    )  # fmt: skip
    fit = RatingFit.objects.create(
        version=newcomer, ruleset="standard", rules_version=RULES_VERSION, run=run, rating=1520.0, low=1440.0,
        high=1600.0, games=40, rank_best=1, rank_worst=2, fitted_at=timezone.now(),
    )  # fmt: skip
    (match,) = ladder_tick(rng=random.Random(0))  # +-80: not yet
    match_cancel(match=match)
    RatingFit.objects.filter(pk=fit.pk).update(low=1475.0, high=1565.0)  # +-45
    assert ladder_tick(rng=random.Random(1)) == []
    assert BotVersion.objects.get(pk=newcomer.pk).placement_ended_at is not None


@override_settings(**PLACEMENT, PLACEMENT_GAMES=100)
def test_a_version_taken_off_the_ladder_plays_no_placement(version_factory) -> None:  # type: ignore[no-untyped-def]
    rated(version_factory(), 1500.0)
    placing(version_factory, ladder_removed_at=timezone.now())
    placing(version_factory, status="retired")
    assert ladder_tick(rng=random.Random(0)) == []


GREEDY_BOT = (Path(__file__).resolve().parents[2] / "lineit" / "builtin" / "greedy_bot.py").read_bytes()


@override_settings(**{**PLACEMENT, "PLACEMENT_DEALS_PER_MATCH": 4}, PLACEMENT_GAMES=1000, PLACEMENT_INTERVAL_ELO=150.0)
def test_placement_ends_when_its_own_games_narrow_the_interval(version_factory) -> None:  # type: ignore[no-untyped-def]
    """No whole-history fit in between: the games it played, against opponents of known rating,
    settle it (lineit.stats.anchored), long before the cap of games."""
    from tournaments.selectors.versions import placement_intervals

    for rating in (1400.0, 1500.0, 1600.0):
        rated(version_factory(code=RANDOM_BOT + f"# {rating}\n".encode()), rating, games=200)
    newcomer = placing(version_factory, code=GREEDY_BOT)
    widths = []
    for step in range(60):
        scheduled = ladder_tick(rng=random.Random(step))
        if not scheduled:
            break
        for match in scheduled:
            assert match.origin == Match.Origin.PLACEMENT
            match_execute(match_id=match.pk, worker="test")
        widths.append(placement_intervals([newcomer.pk]).get((newcomer.pk, "standard")))
    newcomer.refresh_from_db()
    assert newcomer.placement_ended_at is not None and newcomer.on_ladder
    played = sum(match.games for match in placement_matches())
    assert played < 1000  # the interval ended it, not the cap
    assert widths[-1] is not None and widths[-1] <= 150.0 < widths[0]
