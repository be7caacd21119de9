"""The whole-history fit on the leaderboard, API and pages: each row's rating and interval beside
Elo, ordered by the conservative estimate on request, overlapping intervals marked, the band on
the bot page's plot, and the schema naming it all; still two queries a page."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import BotVersion
from lineit.engine import RULES_VERSION
from tournaments.models import Game, Match, MatchEntrant, Rating, RatingEvent, RatingFit
from tournaments.services.ratings_fit import ratings_fit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_response_cache(settings: Any) -> None:
    settings.API_RESPONSE_CACHE_SECONDS = 0


def stored_match(versions: list[BotVersion], results: list[tuple[int, ...]]) -> Match:
    match = Match.objects.create(
        ruleset="standard",
        rules_version=RULES_VERSION,
        num_players=len(versions),
        games=len(results),
        seed=1,
        ranked=True,
        status=Match.Status.FINISHED,
    )
    MatchEntrant.objects.bulk_create(MatchEntrant(match=match, index=i, version=v) for i, v in enumerate(versions))
    Game.objects.bulk_create(
        Game(
            match=match,
            index=n,
            deal=n // 2,
            deck_seed=n,
            seats=list(range(len(versions))),
            scores=[0] * len(versions),
            ranks=list(ranks),
            replay=b"",
        )
        for n, ranks in enumerate(results)
    )
    return match


@pytest.fixture
def fitted(version_factory: Any) -> dict[str, BotVersion]:
    """Four active versions: ``strong`` beats everyone often, ``steady`` and ``lucky`` are close,
    ``fresh`` played few games. Elo (set here) ranks lucky first; the fit's low end, strong."""
    names = ("strong", "steady", "lucky", "fresh")
    versions = {name: version_factory(bot__name=name, status=BotVersion.Status.ACTIVE) for name in names}
    strong, steady, lucky, fresh = (versions[name] for name in names)
    stored_match([strong, steady], [(1, 2)] * 40 + [(2, 1)] * 8)
    stored_match([strong, lucky], [(1, 2)] * 40 + [(2, 1)] * 8)
    stored_match([steady, lucky], [(1, 2), (2, 1)] * 20)
    stored_match([fresh, steady], [(1, 2), (2, 1), (1, 2)])
    elo = {"strong": 1600, "steady": 1450, "lucky": 1700, "fresh": 1500}
    Rating.objects.bulk_create(
        Rating(version=versions[name], ruleset="standard", rules_version=RULES_VERSION, rating=elo[name], games=50)
        for name in names
    )
    ratings_fit(ruleset="standard")
    return versions


def test_each_row_shows_its_fit_beside_elo(anonymous, fitted) -> None:  # type: ignore[no-untyped-def]
    rows = anonymous.get("/api/leaderboard/").json()["results"]

    assert [row["bot_name"] for row in rows] == ["lucky", "strong", "fresh", "steady"]  # by Elo
    for row in rows:
        stored = RatingFit.objects.get(version_id=row["version"])
        assert row["fit"]["rating"] == pytest.approx(stored.rating) and row["rating"] != row["fit"]["rating"]
        assert row["fit"]["low"] < row["fit"]["rating"] < row["fit"]["high"]
        assert row["fit"]["ranks"] == [stored.rank_best, stored.rank_worst]
    strong = next(row for row in rows if row["bot_name"] == "strong")
    assert strong["fit"]["ranks"][0] == 1


def test_ordered_by_the_conservative_estimate(anonymous, fitted) -> None:  # type: ignore[no-untyped-def]
    rows = anonymous.get("/api/leaderboard/?order=conservative").json()["results"]

    lows = [row["fit"]["low"] for row in rows]
    assert lows == sorted(lows, reverse=True) and rows[0]["bot_name"] == "strong"
    assert [row["rank"] for row in rows] == [1, 2, 3, 4]
    assert anonymous.get("/api/leaderboard/?order=best").status_code == 400


def test_a_version_without_a_fit_comes_last_with_none(anonymous, fitted, version_factory) -> None:  # type: ignore[no-untyped-def]
    late = version_factory(bot__name="late", status=BotVersion.Status.ACTIVE)
    Rating.objects.create(version=late, ruleset="standard", rules_version=RULES_VERSION, rating=1900, games=2)

    by_elo = anonymous.get("/api/leaderboard/").json()["results"]
    conservative = anonymous.get("/api/leaderboard/?order=conservative").json()["results"]

    assert by_elo[0]["bot_name"] == "late" and by_elo[0]["fit"] is None
    assert conservative[-1]["bot_name"] == "late"


def test_a_page_with_fits_is_still_two_queries(anonymous, fitted) -> None:  # type: ignore[no-untyped-def]
    for url in ("/api/leaderboard/", "/api/leaderboard/?order=conservative"):
        with CaptureQueriesContext(connection) as queries:
            assert anonymous.get(url).status_code == 200
        assert len(queries) == 2, [q["sql"] for q in queries]


def test_the_schema_names_the_fit(anonymous) -> None:  # type: ignore[no-untyped-def]
    document = anonymous.get("/api/schema/?format=json").json()
    entry = document["components"]["schemas"]["LeaderboardEntry"]["properties"]
    assert "fit" in entry
    fit = document["components"]["schemas"]["RatingFit"]["properties"]
    assert set(fit) == {"rating", "low", "high", "ranks", "fitted_at"}
    parameters = {p["name"] for p in document["paths"]["/api/leaderboard/"]["get"]["parameters"]}
    assert "order" in parameters


def test_the_home_page_shows_intervals_marks_overlaps_and_orders_by_the_low_end(client, fitted) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/").content.decode()
    board = page[page.index('id="leaderboard-standard"') :]
    assert board.index(">lucky<") < board.index(">strong<")
    fit = RatingFit.objects.get(version=fitted["steady"])
    assert f"[{fit.low:.0f}, {fit.high:.0f}]" in board
    assert "overlaps-next" in board  # steady and lucky cannot be told apart

    conservative = client.get("/?order=conservative").content.decode()
    board = conservative[conservative.index('id="leaderboard-standard"') :]
    assert board.index(">strong<") < board.index(">lucky<")


def test_the_bot_page_plot_shows_the_fitted_band(client, fitted) -> None:  # type: ignore[no-untyped-def]
    strong = fitted["strong"]
    match = Match.objects.filter(entrants__version=strong).first()
    RatingEvent.objects.bulk_create(
        RatingEvent(
            key=f"{match.pk}:{n}:{strong.pk}",
            match=match,
            game_index=n,
            version=strong,
            ruleset="standard",
            rules_version=RULES_VERSION,
            before=1500 + n,
            after=1501 + n,
            delta=1,
            k=40,
        )
        for n in range(3)
    )
    page = client.get(f"/bots/{strong.bot.name}/").content.decode()

    fit = RatingFit.objects.get(version=strong)
    assert 'class="fit-band"' in page
    assert f"95% interval {fit.low:.0f} to {fit.high:.0f}" in page
