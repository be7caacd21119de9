"""The match list, page by page: every filter lists exactly the matches it names, newest first,
each once; cursors page forward and back over them without a gap or a repeat; odd cursors are an
invalid cursor (404) or a page, never a server error; and a page is one query whatever its
filters (with the names beside the ids once known: tournaments/selectors/names.py)."""

from __future__ import annotations

from base64 import b64encode
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import BotVersion
from tournaments.models import Match, MatchEntrant
from tournaments.services.matches.results import entrant_summary

pytestmark = pytest.mark.django_db


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
    entrants = MatchEntrant.objects.bulk_create(
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
    for match in matches:  # the summaries the services would have written
        match.entrant_summary = entrant_summary(entrant for entrant in entrants if entrant.match_id == match.pk)
    Match.objects.bulk_update(matches, ["entrant_summary"])
    return {"versions": versions, "bot": first.bot_id, "other_bot": others[0].bot_id, "matches": matches}


def cursor(**tokens: Any) -> str:
    text = "&".join(f"{key}={value}" for key, value in tokens.items())
    return quote(b64encode(text.encode()).decode())


def listed(client: Any, url: str) -> list[list[int]]:
    """The ids of every page, following ``next`` from ``url``; and each page read again from the
    next one's ``previous`` link is the same page."""
    pages: list[list[int]] = []
    body = client.get(url).json()
    while True:
        pages.append([match["id"] for match in body["results"]])
        if not body["next"]:
            return pages
        following = client.get(body["next"]).json()
        assert [match["id"] for match in client.get(following["previous"]).json()["results"]] == pages[-1]
        body = following


def expected(league: dict[str, Any], query: dict[str, Any]) -> list[int]:
    """The ids a filter must list, newest first, worked out from the rows in Python."""
    matches = Match.objects.select_related("requested_by").order_by("-id")
    seated: dict[int, set[int]] = {}
    for match_id, version, bot in MatchEntrant.objects.values_list("match_id", "version_id", "version__bot_id"):
        seated.setdefault(match_id, set()).update({("version", version), ("bot", bot)})
    found = []
    for match in matches:
        keep = all(
            (name, value) in seated.get(match.pk, set())
            if name in ("bot", "version")
            else (match.requested_by and match.requested_by.username) == value
            if name == "requested_by"
            else getattr(match, name) == value
            for name, value in query.items()
        )
        if keep:
            found.append(match.pk)
    return found


def queries(league: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    bot, version = league["bot"], league["versions"][0].pk
    return [
        ("", {}),
        (f"bot={bot}", {"bot": bot}),
        (f"bot={league['other_bot']}&status=finished", {"bot": league["other_bot"], "status": "finished"}),
        (f"version={version}", {"version": version}),
        (
            f"version={version}&ranked=true&ruleset=standard",
            {"version": version, "ranked": True, "ruleset": "standard"},
        ),
        ("status=finished&ranked=true", {"status": "finished", "ranked": True}),
        ("ranked=false&ruleset=bga", {"ranked": False, "ruleset": "bga"}),
        ("ranked=%20TRUE%20", {"ranked": True}),
        ("ranked=0&origin=manual", {"ranked": False, "origin": "manual"}),
        ("status=queued&status=running", {"status": "running"}),  # the last value counts
        ("tournament=12345", {"tournament_id": 12345}),
        ("bot=&status=&ranked=", {}),  # empty values filter nothing
        ("bot=999999", {"bot": 999999}),  # no such bot
        (f"bot={bot}&version={version}", {"bot": bot, "version": version}),
        (f"bot=0{bot}", {"bot": bot}),
        ("requested_by=alice", {"requested_by": "alice"}),
        ("unknown=1&format=json", {}),
    ]


@pytest.mark.parametrize("page_size", [3, 4, 100])
def test_every_filter_lists_its_matches_newest_first_page_by_page(league, anonymous, page_size) -> None:  # type: ignore[no-untyped-def]
    for query, wanted in queries(league):
        pages = listed(anonymous, f"/api/matches/?{query}&page_size={page_size}")
        assert [pk for page in pages for pk in page] == expected(league, wanted), query
        assert all(len(page) == page_size for page in pages[:-1]), query


def test_filters_really_filter(league, anonymous) -> None:  # type: ignore[no-untyped-def]
    def ids(query: str) -> list[int]:
        return [match["id"] for match in anonymous.get(f"/api/matches/{query}&page_size=100").json()["results"]]

    played = MatchEntrant.objects.filter(version__bot_id=league["bot"]).values_list("match_id", flat=True)
    assert ids(f"?bot={league['bot']}") == sorted(set(played), reverse=True)  # a version seated twice: once
    ranked = Match.objects.filter(ranked=True, status="finished").values_list("id", flat=True)
    assert ids("?status=finished&ranked=1") == sorted(ranked, reverse=True)
    assert ids("?bot=999999") == []
    after = "2024-05-01T00:10:00Z"
    assert ids(f"?created_after={after}") == sorted(Match.objects.values_list("id", flat=True), reverse=True)
    assert ids("?finished_before=2024-05-01T00:10:00Z") == sorted(
        Match.objects.filter(finished_at__lt=datetime(2024, 5, 1, 0, 10, tzinfo=UTC)).values_list("id", flat=True),
        reverse=True,
    )


@pytest.mark.parametrize(
    "tokens",
    [
        {"p": "99999999999999999999"},
        {"p": "-99999999999999999999"},
        {"r": "1", "p": "99999999999999999999"},
        {"r": "1", "p": "-5"},
        {"o": "3", "p": "15"},
        {"o": "3", "r": "1", "p": "15"},
        {"r": "1"},
        {"o": "5"},
        {"o": "2000"},  # past DRF's offset cutoff: the cutoff
        {"p": " 12"},
        {"p": "1_0"},
    ],
)
def test_odd_cursors_read_a_page_in_the_lists_order(league, anonymous, tokens) -> None:  # type: ignore[no-untyped-def]
    for query, wanted in (
        ("", {}),
        ("ranked=false", {"ranked": False}),
        (f"version={league['versions'][0].pk}", {"version": league["versions"][0].pk}),
    ):
        response = anonymous.get(f"/api/matches/?{query}&cursor={cursor(**tokens)}")
        assert response.status_code == 200, (query, tokens, response.content)
        ids = [match["id"] for match in response.json()["results"]]
        order = expected(league, wanted)
        assert set(ids) <= set(order) and ids == sorted(ids, reverse=True), (query, tokens)


@pytest.mark.parametrize("tokens", [{"p": "abc"}, {"p": "1.5"}, {"o": "x"}, {"r": "x"}])
def test_a_cursor_it_cannot_read_is_an_invalid_cursor(league, anonymous, tokens) -> None:  # type: ignore[no-untyped-def]
    for query in ("", "ranked=false", f"version={league['versions'][0].pk}"):
        response = anonymous.get(f"/api/matches/?{query}&cursor={cursor(**tokens)}")
        assert response.status_code == 404 and response.json()["error"]["message"] == "Invalid cursor"


@pytest.mark.parametrize("path", ["/api/matches/", "/api/matches/?ranked=true", "/api/games/"])
def test_a_cursor_whose_position_is_not_a_number_is_an_invalid_cursor(anonymous, path) -> None:  # type: ignore[no-untyped-def]
    separator = "&" if "?" in path else "?"
    response = anonymous.get(f"{path}{separator}cursor={cursor(p='abc')}")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Invalid cursor"


@pytest.mark.django_db(transaction=True)  # names read inside a transaction are not kept
def test_a_page_of_the_list_is_one_query_once_its_names_are_known(league, anonymous, settings) -> None:  # type: ignore[no-untyped-def]
    def queries(query: str) -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            assert anonymous.get(f"/api/matches/{query}").status_code == 200
        return [q["sql"] for q in captured]

    for query in (
        "",
        f"?bot={league['bot']}&ranked=true",
        f"?version={league['versions'][1].pk}",
        "?requested_by=alice",
    ):
        assert len(queries(query)) <= 3, query  # the page, and the names not yet kept: labels, requesters
        assert len(queries(query)) == 1, query  # the page alone
    settings.API_RESPONSE_CACHE_SECONDS = 0  # names read afresh for every page
    assert len(queries("")) == 3
