"""Cached responses (lineit_platform/api/caching.py) and lean filters: a cached answer is never a
stale one. The leaderboard follows every rating and every retired version at once; a final match's
detail is served without the database, but only to viewers who see no private field; a match that
is still pending is never cached."""

from __future__ import annotations

import pytest
from api_helpers import CRASHING_BOT
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from bots.services import bot_version_retire
from tournaments.models import Match, Rating

pytestmark = pytest.mark.django_db


def board(client) -> list[tuple[int, float, int, str]]:  # type: ignore[no-untyped-def]
    rows = client.get("/api/leaderboard/").json()["results"]
    return [(row["version"], row["rating"], row["games"], row["version_status"]) for row in rows]


def test_the_cached_leaderboard_follows_every_rating_change(anonymous, version_factory, play_match) -> None:  # type: ignore[no-untyped-def]
    a, b, c = version_factory(), version_factory(), version_factory()
    play_match([a, b], ranked=True, games=2, seed=1)
    first = board(anonymous)
    assert board(anonymous) == first  # the second read is the cached one

    play_match([b, c], ranked=True, games=2, seed=2)  # the rating writer changes rows
    after_match = board(anonymous)
    assert after_match != first
    assert after_match == [(r.version_id, r.rating, r.games, "active") for r in Rating.objects.order_by("-rating")]

    Rating.objects.filter(version=c).update(rating=9999)  # even an edit by hand
    assert board(anonymous)[0][:2] == (c.pk, 9999)

    bot_version_retire(version=a)
    assert dict((row[0], row[3]) for row in board(anonymous))[a.pk] == "retired"


def test_a_cached_leaderboard_read_costs_one_query(anonymous, version_factory, play_match) -> None:  # type: ignore[no-untyped-def]
    play_match([version_factory(), version_factory()], ranked=True, games=2)
    anonymous.get("/api/leaderboard/?page_size=5")
    with CaptureQueriesContext(connection) as queries:
        assert anonymous.get("/api/leaderboard/?page_size=5").status_code == 200
    assert len(queries) == 1  # the fingerprint of the ratings
    with CaptureQueriesContext(connection) as queries:
        anonymous.get("/api/leaderboard/?page_size=6")  # another page: its own entry
    assert len(queries) > 1


def test_a_final_match_detail_is_cached_for_readers_who_see_nothing_private(  # type: ignore[no-untyped-def]
    alice, bob, anonymous, as_user, version_factory, play_match
) -> None:
    match = play_match([version_factory(bot__owner=alice, code=CRASHING_BOT), version_factory(bot__owner=bob)])
    url = f"/api/matches/{match.pk}/"
    public = anonymous.get(url).json()
    with CaptureQueriesContext(connection) as queries:
        assert anonymous.get(url).json() == public
    assert not queries
    assert as_user(bob).get(url).json() == public  # bob's bot did not fail: nothing private for him
    owners_view = as_user(alice).get(url).json()  # alice's bot failed: her stderr, never the cached page
    assert "RuntimeError" in owners_view["game_logs"][0]["failures"][0]["stderr_tail"]
    assert anonymous.get(url).json() == public  # and her view was not cached for others


def test_a_pending_match_is_never_cached(anonymous, version_factory) -> None:  # type: ignore[no-untyped-def]
    match = Match.objects.create(ruleset="standard", rules_version="1.0", num_players=2, games=2, seed=1)
    match.entrants.create(index=0, version=version_factory())
    match.entrants.create(index=1, version=version_factory())
    url = f"/api/matches/{match.pk}/"
    assert anonymous.get(url).json()["status"] == "queued"
    Match.objects.filter(pk=match.pk).update(status="running")
    assert anonymous.get(url).json()["status"] == "running"


@override_settings(API_RESPONSE_CACHE_SECONDS=0)
def test_the_cache_can_be_turned_off(anonymous, version_factory, play_match) -> None:  # type: ignore[no-untyped-def]
    match = play_match([version_factory(), version_factory()])
    anonymous.get(f"/api/matches/{match.pk}/")
    with CaptureQueriesContext(connection) as queries:
        anonymous.get(f"/api/matches/{match.pk}/")
    assert queries


def test_lean_filters_keep_every_filter_in_the_browsable_api(anonymous, bot_factory) -> None:  # type: ignore[no-untyped-def]
    page = anonymous.get("/api/matches/?status=finished", HTTP_ACCEPT="text/html").content.decode()
    for name in ("bot", "version", "ranked", "origin", "finished_before"):
        assert f'name="{name}"' in page
    versionless = bot_factory()
    assert anonymous.get(f"/api/matches/?bot={versionless.pk}").json()["results"] == []
