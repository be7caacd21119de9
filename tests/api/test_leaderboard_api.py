"""The leaderboard, page by page: every filter ranks exactly the ratings it names (one ruleset and
rules version, best first, ties by version), numbered pages follow one another and back, odd page
numbers and sizes get DRF's answers, bad values a 400 and missing pages a 404 in the error shape;
and a page is two queries (its count and its rows) whatever its filters."""

from __future__ import annotations

from typing import Any

import pytest
from api_helpers import assert_error
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import BotVersion
from lineit.engine import RULES_VERSION
from lineit.stats.elo import PROVISIONAL_GAMES
from tournaments.models import Rating

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_response_cache(settings: Any) -> None:
    # Every request reads the database: no page is answered from a cached one.
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


def ranked(*, ruleset: str = "standard", rules_version: str = RULES_VERSION, **wanted: Any) -> list[int]:
    """The versions a filter must rank, best first, worked out from the rows in Python."""
    ratings = [
        rating
        for rating in Rating.objects.select_related("version")
        if (rating.ruleset, rating.rules_version) == (ruleset, rules_version)
        and all(
            rating.version.bot_id == value
            if name == "bot"
            else rating.version.status == value
            if name == "status"
            else (rating.games < PROVISIONAL_GAMES) == value
            for name, value in wanted.items()
        )
    ]
    return [rating.version_id for rating in sorted(ratings, key=lambda rating: (-rating.rating, rating.version_id))]


def filters(board: dict[str, Any]) -> list[tuple[str, list[int]]]:
    bot, other = board["bot"], board["other_bot"]
    assert RULES_VERSION == "1.0"  # the board's current rules version
    return [
        ("", ranked()),
        ("ruleset=standard", ranked()),
        ("ruleset=bga", ranked(ruleset="bga")),
        ("ruleset=", ranked()),  # empty values filter nothing: the default ruleset
        ("rules_version=0.9&ruleset=standard", ranked(rules_version="0.9")),
        ("rules_version=2.0", []),  # no such rules version: an empty board
        (f"bot={bot}", ranked(bot=bot)),
        (f"bot={bot}&ruleset=bga", ranked(ruleset="bga", bot=bot)),
        (f"bot={other}&status=active", ranked(bot=other, status="active")),
        ("bot=999999", []),
        ("status=active", ranked(status="active")),
        ("status=retired&provisional=false", ranked(status="retired", provisional=False)),
        ("provisional=true", ranked(provisional=True)),
        ("provisional=%20FALSE%20", ranked(provisional=False)),
        ("provisional=1&status=validating", ranked(provisional=True, status="validating")),
        ("ruleset=bga&ruleset=standard", ranked()),  # the last value counts
        ("bot=&status=&provisional=&rules_version=", ranked()),
        ("unknown=1&format=json", ranked()),
        (f"bot=0{bot}", ranked(bot=bot)),
        ("rules_version=%201.0%20", ranked()),  # the form's CharField strips it
    ]


def test_every_filter_ranks_its_ratings_page_by_page(board, anonymous) -> None:  # type: ignore[no-untyped-def]
    for query, versions in filters(board):
        for size in (5, 100):
            body = anonymous.get(f"/api/leaderboard/?{query}&page_size={size}").json()
            assert body["count"] == len(versions), query
            shown: list[int] = []
            while True:
                ranks = [row["rank"] for row in body["results"]]
                assert ranks == list(range(len(shown) + 1, len(shown) + 1 + len(ranks))), query
                shown += [row["version"] for row in body["results"]]
                if not body["next"]:
                    break
                following = anonymous.get(body["next"]).json()
                assert anonymous.get(following["previous"]).json() == body, query
                body = following
            assert shown == versions, (query, size)


@pytest.mark.parametrize(
    ("page", "first", "size"),
    [
        ("", 1, 20),
        ("page=1", 1, 20),
        ("page=2", 21, 3),
        ("page=2&page_size=5", 6, 5),
        ("page=5&page_size=5", 21, 3),  # the last page: three rows
        ("page=last&page_size=4", 21, 3),
        ("page_size=3", 1, 3),
        ("page=&page_size=", 1, 20),
        ("page=2&page=3&page_size=5", 11, 5),  # the last value counts
        ("page_size=0", 1, 20),  # not a size: the default
        ("page_size=-4", 1, 20),
        ("page_size=abc", 1, 20),
        ("page_size=%207", 1, 7),
        ("page_size=1000", 1, 23),  # past the maximum (100): the maximum
    ],
)
def test_page_numbers_and_sizes(board, anonymous, page, first, size) -> None:  # type: ignore[no-untyped-def]
    rows = anonymous.get(f"/api/leaderboard/?{page}").json()["results"]
    assert [row["rank"] for row in rows] == list(range(first, first + size))
    assert [row["version"] for row in rows] == ranked()[first - 1 : first - 1 + size]


@pytest.mark.parametrize("page", ["page=999", "page=999999999999999999999999", "page=0", "page=-1", "page=abc"])
def test_a_page_that_does_not_exist_is_a_404(board, anonymous, page) -> None:  # type: ignore[no-untyped-def]
    assert_error(anonymous.get(f"/api/leaderboard/?{page}"), 404, "not_found")


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
def test_bad_values_are_a_400_and_missing_pages_a_404(board, anonymous, query) -> None:  # type: ignore[no-untyped-def]
    assert_error(anonymous.get(f"/api/leaderboard/{query}"), 404 if "page" in query else 400)


def test_filters_really_filter(board, anonymous) -> None:  # type: ignore[no-untyped-def]
    def versions(query: str) -> list[int]:
        return [row["version"] for row in anonymous.get(f"/api/leaderboard/?page_size=100&{query}").json()["results"]]

    standard = Rating.objects.filter(ruleset="standard", rules_version="1.0").order_by("-rating", "version_id")
    assert versions("") == [rating.version_id for rating in standard]
    alices = standard.filter(version__bot_id=board["bot"], games__lt=PROVISIONAL_GAMES)
    assert versions(f"bot={board['bot']}&provisional=true") == [rating.version_id for rating in alices]
    assert versions("status=retired") == [r.version_id for r in standard.filter(version__status="retired")]
    assert len(versions("ruleset=bga")) == 4 and len(versions("rules_version=0.9")) == 2


def test_a_leaderboard_page_is_two_queries(board, anonymous) -> None:  # type: ignore[no-untyped-def]
    for query in ("", "?page=2&page_size=5", f"?bot={board['bot']}&status=active", "?page=last&page_size=5"):
        with CaptureQueriesContext(connection) as captured:
            assert anonymous.get(f"/api/leaderboard/{query}").status_code == 200
        assert len(captured) == 2, (query, [q["sql"] for q in captured])  # its count, its rows
    with CaptureQueriesContext(connection) as captured:
        assert anonymous.get("/api/leaderboard/?page=999").status_code == 404
    assert len(captured) == 1  # the count alone
