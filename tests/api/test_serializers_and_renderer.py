"""The busiest reads (the match list, the match detail, the games, the leaderboard) answer with
the fields the schema declares, in its order, with the values the models hold; a detail's games
are the game endpoint's; the fast JSON renderer writes DRF's bytes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from api_helpers import CRASHING_BOT, assert_error
from django.urls import set_script_prefix
from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from bots.models import Bot
from lineit_platform.api.renderers import FastJSONRenderer
from lineit_platform.api.serializers import (
    EntrantSerializer,
    FailureSerializer,
    GameSerializer,
    LeaderboardEntrySerializer,
    MatchDetailSerializer,
    MatchSerializer,
)
from tournaments.models import Match, Rating

pytestmark = pytest.mark.django_db


def fields(serializer: type[serializers.Serializer]) -> list[str]:
    return list(serializer().fields)


@pytest.fixture
def played(alice, bob, version_factory, play_match) -> Match:  # type: ignore[no-untyped-def]
    """A finished match with a failure (alice's bot crashes), requested by bob."""
    crashing = version_factory(bot__owner=alice, code=CRASHING_BOT)
    return play_match([version_factory(bot__owner=bob), crashing], games=2, requested_by=bob)  # type: ignore[no-any-return]


def test_the_match_list_and_detail_write_the_declared_fields_with_the_models_values(  # type: ignore[no-untyped-def]
    played, anonymous
) -> None:
    listed = anonymous.get("/api/matches/").json()["results"]
    detail = anonymous.get(f"/api/matches/{played.pk}/").json()
    assert list(listed[0]) == fields(MatchSerializer)
    assert list(detail) == fields(MatchDetailSerializer)
    assert {key: detail[key] for key in listed[0]} == listed[0]  # the detail extends the list's row

    time = serializers.DateTimeField()
    assert detail["url"] == f"http://testserver/api/matches/{played.pk}/"
    assert detail["requested_by"] == played.requested_by.username
    assert detail["limits"] == played.limits and detail["sandbox_tier"] == played.sandbox_tier
    for name in ("created_at", "started_at", "finished_at"):
        assert detail[name] == time.to_representation(getattr(played, name))
    entrants = played.entrants.select_related("version__bot").order_by("index")
    assert [list(entrant) for entrant in detail["entrants"]] == [fields(EntrantSerializer)] * 2
    assert [
        (e["version"], e["label"], e["bot"], e["bot_name"], e["total_score"], e["wins"]) for e in detail["entrants"]
    ] == [
        (e.version_id, e.version.label, e.version.bot_id, e.version.bot.name, e.total_score, e.wins) for e in entrants
    ]
    assert [list(game) for game in detail["game_logs"]] == [fields(GameSerializer)] * 2
    failures = [failure for game in detail["game_logs"] for failure in game["failures"]]
    assert failures and all(list(failure) == fields(FailureSerializer) for failure in failures)


def test_the_detail_writes_each_game_as_the_game_endpoint_does(played, as_user, alice, bob) -> None:  # type: ignore[no-untyped-def]
    for viewer in (None, alice, bob):  # alice owns the failing bot: she alone sees its stderr
        client = as_user(viewer)
        games = client.get(f"/api/games/?match={played.pk}").json()["results"]
        assert client.get(f"/api/matches/{played.pk}/").json()["game_logs"] == games
        tails = [failure["stderr_tail"] for game in games for failure in game["failures"]]
        assert all(tails) if viewer is alice else not any(tails)


def test_the_leaderboard_writes_the_declared_fields(anonymous, version_factory) -> None:  # type: ignore[no-untyped-def]
    for n in range(3):
        Rating.objects.create(
            version=version_factory(), ruleset="standard", rules_version="1.0", rating=1400 + n, games=n
        )
    rows = anonymous.get("/api/leaderboard/?rules_version=1.0&page_size=2&page=2").json()["results"]
    assert [list(row) for row in rows] == [fields(LeaderboardEntrySerializer)]
    rating = Rating.objects.select_related("version__bot__owner").get(rating=1400)
    assert rows[0]["rank"] == 3 and rows[0]["label"] == rating.version.label
    assert rows[0]["owner"] == rating.version.bot.owner.username
    assert rows[0]["updated_at"] == serializers.DateTimeField().to_representation(rating.updated_at)
    assert rows[0]["history_url"].endswith(
        f"/api/versions/{rating.version_id}/rating-history/?ruleset=standard&rules_version=1.0"
    )


def test_a_match_list_page_keeps_its_order_and_the_cursor_pages(anonymous, version_factory, play_match) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory(), version_factory()]
    ids = [play_match(versions[: 2 + n % 2], games=1, seed=n).pk for n in range(5)]
    first = anonymous.get("/api/matches/?page_size=3").json()
    second = anonymous.get(first["next"]).json()
    assert [m["id"] for m in first["results"] + second["results"]] == sorted(ids, reverse=True)
    assert [len(m["entrants"]) for m in first["results"]] == [2 + n % 2 for n in (4, 3, 2)]
    assert [m["id"] for m in anonymous.get(second["previous"]).json()["results"]] == sorted(ids, reverse=True)[:3]


@pytest.mark.parametrize("pk", ["0", "99999999999999999999999", "9223372036854775807"])
def test_a_missing_or_impossible_match_id_is_a_404(anonymous, pk) -> None:  # type: ignore[no-untyped-def]
    assert_error(anonymous.get(f"/api/matches/{pk}/"), 404, "not_found")


def test_date_times_are_written_as_drf_writes_them(anonymous, version_factory) -> None:  # type: ignore[no-untyped-def]
    drf = serializers.DateTimeField()
    match = Match.objects.create(
        ruleset="standard",
        rules_version="1.0",
        num_players=2,
        games=2,
        seed=1,
        started_at=datetime(2024, 5, 1, 12, 30, 15, 120000, tzinfo=UTC),
        finished_at=datetime(2024, 5, 1, 17, 30, 15, tzinfo=timezone(timedelta(hours=5))),  # 12:30:15 UTC
    )
    shown = anonymous.get(f"/api/matches/{match.pk}/").json()
    assert shown["started_at"] == "2024-05-01T12:30:15.120000Z"
    assert shown["finished_at"] == "2024-05-01T12:30:15Z" == drf.to_representation(match.finished_at)
    listed = anonymous.get("/api/matches/").json()["results"][0]
    assert listed["created_at"] == drf.to_representation(Match.objects.get(pk=match.pk).created_at)


@pytest.mark.parametrize(
    "data",
    [
        {"results": [{"id": 1, "name": "émile", "rating": 1512.25, "none": None, "ok": True}], "next": None},
        {"line": "a\u2028b\u2029c", "nested": [[], {}, [1, [2, {"x": "y"}]]]},
        {"when": datetime(2024, 5, 1, 12, tzinfo=UTC), "price": Decimal("1.50"), "lazy": gettext_lazy("Not found.")},
        {"big": 2**70, 3: "integer key"},
        [1, 2.5, "three"],
    ],
)
def test_the_fast_renderer_writes_drfs_bytes(data: Any) -> None:
    assert FastJSONRenderer().render(data) == JSONRenderer().render(data)
    indented = FastJSONRenderer().render(data, "application/json; indent=2")
    assert indented == JSONRenderer().render(data, "application/json; indent=2")
    assert json.loads(indented) == json.loads(JSONRenderer().render(data))


def test_browsers_still_get_the_browsable_api(played, anonymous) -> None:  # type: ignore[no-untyped-def]
    for url in ("/api/matches/", f"/api/matches/{played.pk}/", "/api/leaderboard/"):
        response = anonymous.get(url, HTTP_ACCEPT="text/html")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/html"), url


def test_links_follow_the_script_prefix_of_each_request(anonymous, version_factory, play_match) -> None:  # type: ignore[no-untyped-def]
    # A site served under /arena/ links under /arena/, and the next request under / does not
    # inherit it (links are made per request).
    match = play_match([version_factory(), version_factory()], games=1)
    try:
        set_script_prefix("/arena/")
        listed = anonymous.get("/api/matches/").json()["results"][0]
        assert listed["url"] == f"http://testserver/arena/api/matches/{match.pk}/"
    finally:
        set_script_prefix("/")
    assert anonymous.get("/api/matches/").json()["results"][0]["url"] == f"http://testserver/api/matches/{match.pk}/"
    game = anonymous.get(f"/api/matches/{match.pk}/").json()["game_logs"][0]
    assert game["replay_url"] == f"http://testserver/api/games/{game['id']}/replay/"


def test_a_bot_renamed_in_the_admin_shows_in_the_lists_at_once_with_the_cache_off(  # type: ignore[no-untyped-def]
    anonymous, version_factory, play_match, settings
) -> None:
    # With the cache on, a process keeps the names for API_RESPONSE_CACHE_SECONDS (names.py).
    settings.API_RESPONSE_CACHE_SECONDS = 0
    renamed = version_factory(bot__name="first-name")
    match = play_match([renamed, version_factory()], games=1)

    def labels() -> list[str]:
        listed = anonymous.get("/api/matches/").json()["results"][0]
        detail = anonymous.get(f"/api/matches/{match.pk}/").json()
        assert [e["label"] for e in detail["entrants"]] == [e["label"] for e in listed["entrants"]]
        return [e["label"] for e in listed["entrants"]]

    assert labels()[0] == f"first-name@v{renamed.number}"
    Bot.objects.filter(pk=renamed.bot_id).update(name="second-name")
    assert labels()[0] == f"second-name@v{renamed.number}"
