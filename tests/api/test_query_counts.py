"""No N+1 queries: every list endpoint (and the match detail, whose games are a list) costs the
same number of queries for 1 row as for 30."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from api_helpers import client_for
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import BotVersion
from tournaments.models import Game, GameFailure, Match, MatchEntrant, Rating, RatingEvent, compress_replay

pytestmark = pytest.mark.django_db

MAX_QUERIES = 8  # token, page, count or cursor, prefetches: never per row


def finished_matches(count: int, versions: list[BotVersion], games: int = 1) -> list[Match]:
    """Rows as the services write them, created in bulk (the endpoints only read them)."""
    matches = Match.objects.bulk_create(
        Match(
            ruleset="standard",
            rules_version="1.0",
            num_players=2,
            games=games,
            seed=n,
            status="finished",
            failure_count=games,  # one failure in each game, below
        )
        for n in range(count)
    )
    MatchEntrant.objects.bulk_create(
        MatchEntrant(match=match, index=i, version=versions[(n + i) % len(versions)], total_score=10, mean_rank=1.5)
        for n, match in enumerate(matches)
        for i in range(2)
    )
    logs = Game.objects.bulk_create(
        Game(
            match=match,
            index=g,
            deal=g,
            deck_seed=g,
            seats=[0, 1],
            scores=[3, 1],
            ranks=[1, 2],
            replay=compress_replay({}),
        )
        for match in matches
        for g in range(games)
    )
    GameFailure.objects.bulk_create(
        GameFailure(game=game, match_id=game.match_id, version=versions[0], seat=1, kind="timeout", message="slow")
        for game in logs
    )
    return matches


def queries_for(client: Any, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, response.content
    return len(captured)


def compare(client: Any, url: str, grow: Callable[[], None], expected_rows: Callable[[], int]) -> None:
    few = queries_for(client, url)
    grow()
    rows = client.get(url).json()
    listed = rows["results"] if "results" in rows else rows["game_logs"]
    assert len(listed) == expected_rows()
    many = queries_for(client, url)
    assert many == few <= MAX_QUERIES, (url, few, many)


@pytest.fixture
def viewer(alice: Any) -> Any:
    return client_for(alice)  # a signed-in owner: stderr visibility is computed for every failure


@pytest.fixture
def pair(alice: Any, bob: Any, version_factory: Any) -> list[BotVersion]:
    return [version_factory(bot__owner=alice), version_factory(bot__owner=bob)]


def test_match_list(viewer, pair) -> None:  # type: ignore[no-untyped-def]
    finished_matches(1, pair)
    url = f"/api/matches/?page_size=30&bot={pair[0].bot_id}&status=finished"
    compare(viewer, url, lambda: finished_matches(29, pair), lambda: 30)


def test_match_detail_with_many_games(viewer, pair) -> None:  # type: ignore[no-untyped-def]
    few = finished_matches(1, pair, games=1)[0]
    many = finished_matches(1, pair, games=30)[0]
    assert queries_for(viewer, f"/api/matches/{few.pk}/") == queries_for(viewer, f"/api/matches/{many.pk}/")
    assert len(viewer.get(f"/api/matches/{many.pk}/").json()["game_logs"]) == 30


def test_head_to_head(viewer, alice, version_factory, pair) -> None:  # type: ignore[no-untyped-def]
    finished_matches(1, pair)
    url = f"/api/bots/{pair[0].bot_id}/head-to-head/?page_size=30"

    def grow() -> None:  # 29 more opponents, one match each
        for _ in range(29):
            finished_matches(1, [pair[0], version_factory()])

    compare(viewer, url, grow, lambda: 30)


def test_game_list(viewer, pair) -> None:  # type: ignore[no-untyped-def]
    finished_matches(1, pair)
    compare(viewer, "/api/games/?page_size=30", lambda: finished_matches(29, pair), lambda: 30)


def test_bot_and_version_lists(viewer, alice, bot_factory, version_factory) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    version_factory(bot=bot)

    def grow() -> None:
        for _ in range(29):
            version_factory(bot=bot_factory())

    few_bots, few_versions = queries_for(viewer, "/api/bots/"), queries_for(viewer, "/api/versions/?page_size=30")
    few_nested = queries_for(viewer, f"/api/bots/{bot.pk}/versions/")
    grow()
    for _ in range(29):
        version_factory(bot=bot)
    assert queries_for(viewer, "/api/bots/?page_size=30") == few_bots <= MAX_QUERIES
    assert queries_for(viewer, "/api/versions/?page_size=30") == few_versions <= MAX_QUERIES
    assert queries_for(viewer, f"/api/bots/{bot.pk}/versions/?page_size=30") == few_nested <= MAX_QUERIES
    assert len(viewer.get("/api/versions/?page_size=30").json()["results"]) == 30


def test_leaderboard_and_rating_history(viewer, version_factory, pair) -> None:  # type: ignore[no-untyped-def]
    def rate(version: BotVersion, n: int) -> None:
        Rating.objects.create(version=version, ruleset="standard", rules_version="1.0", rating=1500 + n, games=n)

    rate(pair[0], 1)
    match = finished_matches(1, pair)[0]

    def event(n: int) -> RatingEvent:
        return RatingEvent(
            key=f"{match.pk}:{n}:{pair[0].pk}",
            match=match,
            game_index=n,
            version=pair[0],
            ruleset="standard",
            rules_version="1.0",
            before=1500,
            after=1501,
            delta=1,
            k=40,
        )

    RatingEvent.objects.create(
        **{f.name: getattr(event(0), f.name) for f in RatingEvent._meta.concrete_fields if f.name != "id"}
    )
    few_board = queries_for(viewer, "/api/leaderboard/?page_size=30")
    history_url = f"/api/versions/{pair[0].pk}/rating-history/?page_size=30"
    few_history = queries_for(viewer, history_url)
    for n in range(29):
        rate(version_factory(), n + 2)
    RatingEvent.objects.bulk_create(event(n) for n in range(1, 30))
    assert queries_for(viewer, "/api/leaderboard/?page_size=30") == few_board <= MAX_QUERIES
    assert queries_for(viewer, history_url) == few_history <= MAX_QUERIES
    assert len(viewer.get(history_url).json()["results"]) == 30
