"""The leaderboard's one-query path (lineit_platform/api/leaderboard_pages.py) answers exactly as
the general path (the FilterSet and the ORM) does: the same bytes for every filter, page and page
size, the same errors."""

from __future__ import annotations

from typing import Any

import pytest
from api_helpers import assert_same_as_general_path
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import BotVersion
from lineit.stats.elo import PROVISIONAL_GAMES
from lineit_platform.api import leaderboard_pages
from tournaments.models import Rating

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["connection per request", "kept connection"])
def connections(request: Any, monkeypatch: Any) -> None:
    """Both ways the reads send their queries: as text, and as prepared statements."""
    if request.param == "kept connection":
        monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)


@pytest.fixture(autouse=True)
def _no_response_cache(settings: Any) -> None:
    # Each path must answer for itself, not serve the other's cached response.
    settings.API_RESPONSE_CACHE_SECONDS = 0


@pytest.fixture
def board(alice: Any, bob: Any, version_factory: Any) -> dict[str, Any]:
    """Twenty-three ratings in standard 1.0 (two tied, some provisional, versions of every status;
    alice's bot has three versions), a few in bga and in an older rules version."""
    alices = version_factory(bot__owner=alice)
    versions: list[BotVersion] = [alices, version_factory(bot=alices.bot), version_factory(bot=alices.bot)]
    versions += [version_factory(bot__owner=bob if n % 2 else alice) for n in range(20)]
    statuses = list(BotVersion.Status.values)
    for n, version in enumerate(versions):
        version.status = statuses[n % len(statuses)]
        version.save(update_fields=["status"])
    ratings = [
        Rating(
            version=version,
            ruleset="standard",
            rules_version="1.0",
            rating=1500.0 if n in (4, 9) else 1400 + (n * 37 % 23) * 11.125,
            games=PROVISIONAL_GAMES - n % 2 if n < 4 else (n * 7) % (2 * PROVISIONAL_GAMES),  # both sides of the mark
        )
        for n, version in enumerate(versions)
    ]
    ratings += [
        Rating(version=v, ruleset="bga", rules_version="1.0", rating=1600 - n) for n, v in enumerate(versions[:4])
    ]
    ratings += [Rating(version=v, ruleset="standard", rules_version="0.9", rating=1450) for v in versions[5:7]]
    Rating.objects.bulk_create(ratings)
    return {"bot": alices.bot_id, "other_bot": versions[4].bot_id}


def assert_same(client: Any, url: str, monkeypatch: Any) -> Any:
    return assert_same_as_general_path(client, url, monkeypatch, leaderboard_pages, "leaderboard_rows")


def filters(board: dict[str, Any]) -> list[str]:
    bot = board["bot"]
    return [
        "",
        "ruleset=standard",
        "ruleset=bga",
        "ruleset=",  # empty values filter nothing: the default ruleset
        "rules_version=1.0",
        "rules_version=0.9&ruleset=standard",
        "rules_version=2.0",  # no such rules version: an empty board
        f"bot={bot}",
        f"bot={bot}&ruleset=bga",
        f"bot={board['other_bot']}&status=active",
        "bot=999999",
        "status=active",
        "status=retired&provisional=false",
        "provisional=true",
        "provisional=%20FALSE%20",
        "provisional=1&status=validating",
        "ruleset=bga&ruleset=standard",  # the last value counts
        "bot=&status=&provisional=&rules_version=",
        "unknown=1&format=json",
        # Not in their plain form: the general path.
        f"bot=0{bot}",
        "rules_version=%201.0%20",
        "rules_version=%20%20",
        "bot=5.0",
    ]


PAGES = [
    "",
    "page=1",
    "page=2",
    "page=2&page_size=5",
    "page=5&page_size=5",  # the last page: three rows
    "page=3&page_size=10",
    "page_size=3",
    "page=&page_size=",
    "page=last",
    "page=last&page_size=4",
    "page=%202",
    "page=1_0&page_size=2",
    "page=2.0",
    "page=2&page=3",
    "page_size=0",
    "page_size=-4",
    "page_size=abc",
    "page_size=1000",  # past the maximum: the maximum
    "page_size=%207",
    # Errors: pages that do not exist or are not numbers.
    "page=999",
    "page=999999999999999999999999",
    "page=0",
    "page=-1",
    "page=abc",
]


def test_every_filter_and_page_reads_as_the_general_path_does(board, anonymous, monkeypatch, connections) -> None:  # type: ignore[no-untyped-def]
    for query in filters(board):
        for page in PAGES:
            url = f"/api/leaderboard/?{'&'.join(part for part in (query, page) if part)}"
            body = assert_same(anonymous, url, monkeypatch).json()
            for _ in range(2):  # forward a page or two, and back from each
                if not body.get("next"):
                    break
                body = assert_same(anonymous, body["next"], monkeypatch).json()
                assert_same(anonymous, body["previous"], monkeypatch)


@pytest.mark.parametrize(
    "query",
    [
        "?ruleset=nonsense",
        "?ruleset=null",
        "?status=sleeping",
        "?provisional=maybe",
        "?bot=abc",
        "?bot=0",
        "?bot=99999999999999999999",
        f"?rules_version={'x' * 21}",
        "?rules_version=1.0%00",
        "?page=999",
        "?page=abc",
        "?status=active&page=9",
    ],
)
def test_bad_values_get_the_general_paths_errors(board, anonymous, monkeypatch, query) -> None:  # type: ignore[no-untyped-def]
    assert assert_same(anonymous, f"/api/leaderboard/{query}", monkeypatch).status_code in (400, 404)


def test_filters_really_filter(board, anonymous) -> None:  # type: ignore[no-untyped-def]
    def versions(query: str) -> list[int]:
        return [row["version"] for row in anonymous.get(f"/api/leaderboard/?page_size=100&{query}").json()["results"]]

    standard = Rating.objects.filter(ruleset="standard", rules_version="1.0").order_by("-rating", "version_id")
    assert versions("") == [rating.version_id for rating in standard]
    alices = standard.filter(version__bot_id=board["bot"], games__lt=PROVISIONAL_GAMES)
    assert versions(f"bot={board['bot']}&provisional=true") == [rating.version_id for rating in alices]
    assert versions("status=retired") == [r.version_id for r in standard.filter(version__status="retired")]
    assert len(versions("ruleset=bga")) == 4 and len(versions("rules_version=0.9")) == 2


def test_a_leaderboard_page_is_one_query(board, anonymous) -> None:  # type: ignore[no-untyped-def]
    for query in ("", "?page=2&page_size=5", f"?bot={board['bot']}&status=active", "?page=999"):
        with CaptureQueriesContext(connection) as captured:
            anonymous.get(f"/api/leaderboard/{query}")
        assert len(captured) == 1, (query, [q["sql"] for q in captured])
    with CaptureQueriesContext(connection) as captured:
        assert anonymous.get("/api/leaderboard/?page=last&page_size=5").status_code == 200
    assert len(captured) == 2  # the first page was guessed, the last one read
