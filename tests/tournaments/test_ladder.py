"""The ladder keeps active versions playing rated matches: new versions first, close ratings."""

from __future__ import annotations

import random

import pytest
from django.test import override_settings

from lineit.engine import RULES_VERSION
from tournaments.models import Match, Rating
from tournaments.services.ladder import ladder_tick

pytestmark = pytest.mark.django_db


@override_settings(LADDER_PENDING_TARGET=3, LADDER_TABLE_SIZES=[2, 3], LADDER_DEALS_PER_MATCH=2)
def test_the_ladder_tops_the_queue_up_with_ranked_matches(version_factory) -> None:  # type: ignore[no-untyped-def]
    for _ in range(4):
        version_factory()
    scheduled = ladder_tick(rng=random.Random(1))
    assert len(scheduled) == 3
    for match in scheduled:
        assert match.ranked and match.origin == "ladder" and match.duplicate_deals
        assert match.num_players in (2, 3) and match.games == 2 * match.num_players
        bots = [e.version.bot_id for e in match.entrants.all()]
        assert len(set(bots)) == len(bots)
    assert ladder_tick(rng=random.Random(2)) == []  # the queue is full


@override_settings(LADDER_PENDING_TARGET=1, LADDER_TABLE_SIZES=[2])
def test_a_new_version_plays_first_against_the_closest_rating(version_factory) -> None:  # type: ignore[no-untyped-def]
    veterans = [version_factory() for _ in range(4)]
    for version, rating in zip(veterans, [1200.0, 1480.0, 1700.0, 1900.0]):
        Rating.objects.create(version=version, ruleset="standard", rules_version=RULES_VERSION, rating=rating, games=50)
    Rating.objects.filter(version=veterans[1]).update(games=60)
    newcomer = version_factory()
    (match,) = ladder_tick(rng=random.Random(4))
    seated = {e.version_id for e in match.entrants.all()}
    assert seated == {newcomer.pk, veterans[1].pk}  # 1500 (new) meets 1480


@override_settings(LADDER_PENDING_TARGET=2)
def test_retired_and_rejected_versions_stay_off_the_ladder(version_factory) -> None:  # type: ignore[no-untyped-def]
    version_factory()
    version_factory(status="retired")
    version_factory(status="rejected")
    assert ladder_tick(rng=random.Random(0)) == []
    assert not Match.objects.exists()


@override_settings(LADDER_PENDING_TARGET=1, LADDER_TABLE_SIZES=[3])
def test_versions_of_one_bot_near_the_focus_leave_the_other_seats_to_the_next_bots(version_factory) -> None:  # type: ignore[no-untyped-def]
    """The opponents are looked for among the nearest ratings only: the window reaches past a
    bot whose many versions sit closest, to the nearest versions of two other bots."""
    crowd = version_factory()
    crowding = [crowd] + [version_factory(bot=crowd.bot) for _ in range(5)]
    near, far, farther = version_factory(), version_factory(), version_factory()
    ratings = [(v, 1500.0 + n) for n, v in enumerate(crowding)] + [(near, 1300.0), (far, 1000.0), (farther, 600.0)]
    for version, rating in ratings:
        Rating.objects.create(version=version, ruleset="standard", rules_version=RULES_VERSION, rating=rating, games=50)
    newcomer = version_factory()  # 1500, no games: the focus
    for seed in range(5):
        Match.objects.all().delete()
        (match,) = ladder_tick(rng=random.Random(seed))
        seated = {e.version_id for e in match.entrants.all()}
        assert newcomer.pk in seated and near.pk in seated and farther.pk not in seated
        assert len(seated & {v.pk for v in crowding}) == 1  # one seat for the crowding bot, never two
