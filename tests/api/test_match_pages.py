"""The match list's one-query path (lineit_platform/api/match_pages.py) answers exactly as the
general path (the FilterSet and the ORM) does: the same bytes for every filter, page and cursor,
the same errors; and the hot reads give the same answers as prepared statements."""

from __future__ import annotations

from base64 import b64encode
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from api_helpers import assert_same_as_general_path
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import BotVersion
from lineit_platform.api import match_pages
from tournaments.models import Match, MatchEntrant

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["connection per request", "kept connection"])
def connections(request: Any, monkeypatch: Any) -> None:
    """Both ways the hot reads send their queries: as text, and as prepared statements."""
    if request.param == "kept connection":
        monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)


@pytest.fixture
def league(alice: Any, bob: Any, version_factory: Any) -> dict[str, Any]:
    """Thirty matches of every status, origin, ruleset and ranking; one version seated twice in
    some; a bot of two versions; a match without entrants; requested by alice or nobody."""
    first = version_factory(bot__owner=alice)
    second = version_factory(bot=first.bot)
    others = [version_factory(bot__owner=bob) for _ in range(3)]
    versions: list[BotVersion] = [first, second, *others]
    statuses, origins = list(Match.Status.values), list(Match.Origin.values)
    start = datetime(2024, 5, 1, tzinfo=UTC)
    matches = Match.objects.bulk_create(
        Match(
            ruleset=("standard", "bga")[n % 2],
            rules_version="1.0",
            num_players=2,
            games=2,
            seed=n,
            ranked=n % 3 == 0,
            origin=origins[n % len(origins)] if origins[n % len(origins)] != "tournament" else "ladder",
            status=statuses[n % len(statuses)],
            requested_by=alice if n % 4 == 0 else None,
            error="boom" if n % 7 == 0 else "",
            started_at=start + timedelta(minutes=n) if n % 2 else None,
            finished_at=start + timedelta(minutes=n, seconds=30, microseconds=n) if n % 2 else None,
        )
        for n in range(30)
    )
    MatchEntrant.objects.bulk_create(
        MatchEntrant(
            match=match,
            index=seat,
            version=versions[0] if n % 5 == 0 else versions[(n + seat) % len(versions)],
            total_score=n + seat if match.status == "finished" else None,
            mean_rank=1.5 if match.status == "finished" else None,
        )
        for n, match in enumerate(matches[:-1])  # the newest has no entrants
        for seat in range(2)
    )
    return {"versions": versions, "bot": first.bot_id, "other_bot": others[0].bot_id, "matches": matches}


def cursor(**tokens: Any) -> str:
    text = "&".join(f"{key}={value}" for key, value in tokens.items())
    return quote(b64encode(text.encode()).decode())


def assert_same(client: Any, url: str, monkeypatch: Any) -> Any:
    return assert_same_as_general_path(client, url, monkeypatch, match_pages, "match_rows")


def queries(league: dict[str, Any]) -> list[str]:
    bot, version, tournament = league["bot"], league["versions"][0].pk, 12345
    return [
        "",
        "?page_size=4",
        f"?bot={bot}",
        f"?bot={bot}&page_size=3",
        f"?bot={league['other_bot']}&status=finished",
        f"?version={version}&page_size=2",
        f"?version={version}&ranked=true&ruleset=standard",
        "?status=finished&ranked=true",
        "?ranked=false&ruleset=bga&page_size=3",
        "?ranked=%20TRUE%20",
        "?ranked=0&origin=manual",
        "?status=queued&status=running",  # the last value counts
        f"?tournament={tournament}",
        "?bot=&status=&ranked=",  # empty values filter nothing
        "?bot=999999",  # no such bot
        f"?bot={bot}&version={version}",  # both: the general path
        f"?bot=0{bot}",  # not in its plain form: the general path
        "?version=5.0",
        "?created_after=2024-05-01T00:10:00Z",
        "?requested_by=alice&page_size=5",
        "?unknown=1&format=json",
    ]


def test_every_filter_and_page_reads_as_the_general_path_does(league, anonymous, monkeypatch, connections) -> None:  # type: ignore[no-untyped-def]
    for query in queries(league):
        url = f"/api/matches/{query}"
        body = assert_same(anonymous, url, monkeypatch).json()
        for _ in range(3):  # forward a few pages, and back from each
            if not body["next"]:
                break
            body = assert_same(anonymous, body["next"], monkeypatch).json()
            assert_same(anonymous, body["previous"], monkeypatch)


def test_filters_really_filter(league, anonymous) -> None:  # type: ignore[no-untyped-def]
    def ids(query: str) -> list[int]:
        return [match["id"] for match in anonymous.get(f"/api/matches/{query}&page_size=100").json()["results"]]

    played = MatchEntrant.objects.filter(version__bot_id=league["bot"]).values_list("match_id", flat=True)
    assert ids(f"?bot={league['bot']}") == sorted(set(played), reverse=True)  # a version seated twice: once
    ranked = Match.objects.filter(ranked=True, status="finished").values_list("id", flat=True)
    assert ids("?status=finished&ranked=1") == sorted(ranked, reverse=True)
    assert ids("?bot=999999") == []


@pytest.mark.parametrize(
    "tokens",
    [
        {"p": "abc"},  # not a whole number: an invalid cursor (404) on both paths
        {"p": "99999999999999999999"},
        {"p": "-99999999999999999999"},
        {"r": "1", "p": "99999999999999999999"},
        {"r": "1", "p": "-5"},
        {"o": "3", "p": "15"},
        {"o": "3", "r": "1", "p": "15"},
        {"o": "2000"},  # past the offset cutoff: an invalid cursor
        {"r": "1"},
        {"o": "5"},
        {"p": " 12"},
        {"p": "1_0"},
    ],
)
def test_odd_cursors_read_as_the_general_path_does(league, anonymous, monkeypatch, tokens, connections) -> None:  # type: ignore[no-untyped-def]
    for query in ("?", "?ranked=false&", f"?version={league['versions'][0].pk}&"):
        assert_same(anonymous, f"/api/matches/{query}cursor={cursor(**tokens)}", monkeypatch)


@pytest.mark.parametrize("path", ["/api/matches/", "/api/matches/?ranked=true", "/api/games/"])
def test_a_cursor_whose_position_is_not_a_number_is_an_invalid_cursor(anonymous, path) -> None:  # type: ignore[no-untyped-def]
    separator = "&" if "?" in path else "?"
    response = anonymous.get(f"{path}{separator}cursor={cursor(p='abc')}")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Invalid cursor"


@pytest.mark.parametrize("query", ["?status=sleeping", "?ranked=maybe", "?bot=abc", "?bot=0", "?version=1e40"])
def test_bad_values_get_the_general_paths_errors(league, anonymous, monkeypatch, query) -> None:  # type: ignore[no-untyped-def]
    assert assert_same(anonymous, f"/api/matches/{query}", monkeypatch).status_code == 400


def test_a_page_of_the_list_is_one_query(league, anonymous) -> None:  # type: ignore[no-untyped-def]
    for query in ("", f"?bot={league['bot']}&ranked=true", f"?version={league['versions'][1].pk}"):
        with CaptureQueriesContext(connection) as captured:
            assert anonymous.get(f"/api/matches/{query}").status_code == 200
        assert len(captured) == 1, (query, [q["sql"] for q in captured])


def test_kept_connections_read_through_prepared_statements(league, anonymous, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    match = league["matches"][0]  # queued: its detail is never served from the response cache
    assert match.status == "queued"
    urls = [
        "/api/matches/?page_size=5",
        f"/api/matches/?bot={league['bot']}",
        f"/api/matches/{match.pk}/",
        f"/api/games/?match={match.pk}",
        "/api/leaderboard/",
    ]
    once = [anonymous.get(url).content for url in urls]
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)
    for _ in range(2):  # prepared, then executed as prepared
        assert [anonymous.get(url).content for url in urls] == once
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements")
        assert cursor.fetchone()[0] >= 4  # two pages, a detail's two queries
