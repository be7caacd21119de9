"""The tournament pages (issue 16, item 7), on tournaments played for real: scores in the bracket's
boxes, labelled bands for double elimination, 44-pixel replay targets; the winner line and the
cross-table of round robin and Swiss; the countdown of an upcoming tournament; finished ones with
their winners on the home page and in the list; query counts that do not grow with entrants."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

import pytest
from axe_check import axe_problems
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from bots.code_cache import version_source
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit_platform.web.tournaments import countdown
from tournaments.models import Match, Tournament
from tournaments.selectors.tournaments import tournament_cross_table, tournament_standings
from tournaments.services.matches.results import match_record_result
from tournaments.services.matches.states import match_claim, match_spec
from tournaments.services.tournaments.creation import tournament_create
from tournaments.services.tournaments.running import tournament_advance, tournament_start

pytestmark = [pytest.mark.django_db]


def play_out(tournament: Tournament) -> Tournament:
    """Every round played here with in-process players (as tests/tournaments/tournament_helpers.py)."""
    for _ in range(30):
        if tournament.status != Tournament.Status.RUNNING:
            return tournament
        for match in Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("id"):
            claimed = match_claim(match_id=match.pk, worker="tests")
            assert claimed is not None
            versions = [e.version for e in claimed.entrants.select_related("version__bot").order_by("index")]
            result = run_match(match_spec(claimed), [InProcessPlayer(version_source(v)) for v in versions])
            assert match_record_result(match_id=match.pk, attempt=claimed.attempts, result=result)
        tournament = tournament_advance(tournament_id=tournament.pk)
    raise AssertionError("the tournament did not finish")


def played(version_factory: Any, format: str, entrants: int = 4, name: str = "", **extra: Any) -> Tournament:
    tournament = tournament_create(
        name=name or f"{format} cup",
        format=format,
        starts_at=timezone.now(),
        games_per_pairing=2,
        versions=[version_factory() for _ in range(entrants)],
        **extra,
    )
    finished = play_out(tournament_start(tournament_id=tournament.pk))
    assert finished.status == Tournament.Status.FINISHED
    return finished


def page(tournament: Tournament) -> str:
    response = Client().get(reverse("tournament-detail", args=[tournament.pk]))
    assert response.status_code == 200
    return response.content.decode()


def section(text: str, title_id: str) -> str:
    found = re.search(rf'<section aria-labelledby="{title_id}">(.*?)</section>', text, re.DOTALL)
    assert found is not None, f"no section {title_id}"
    return found.group(1)


def final_standings(tournament: Tournament) -> list[dict[str, Any]]:
    return tournament_standings(tournament)[-1]["rows"]


@pytest.mark.parametrize(("format", "options"), [("round-robin", {}), ("swiss", {"rounds": 2})])
def test_round_robin_and_swiss_show_the_winner_and_a_cross_table_that_agrees_with_the_standings(
    version_factory: Any, format: str, options: dict[str, Any]
) -> None:
    tournament = played(version_factory, format, options=options)
    text = page(tournament)
    rows = final_standings(tournament)
    winner = re.search(r'<p class="ok-text winner"><strong>Winner: (.*?)</strong>', text, re.DOTALL)
    assert winner is not None and re.sub(r"<[^>]+>", "", winner.group(1)).strip() == rows[0]["label"]

    cross = tournament_cross_table(tournament)
    assert cross is not None
    assert [row["entrant"] for row in cross["rows"]] == [row["entrant"] for row in rows]
    by_entrant = {row["entrant"]: row for row in rows}
    for row in cross["rows"]:
        results = [result for cell in row["cells"] for result in cell["results"]]
        # Each entrant's cells add up to its points in the standings and to its matches.
        assert sum(r["points"] for r in results) == pytest.approx(by_entrant[row["entrant"]]["points"])
        assert len(results) == by_entrant[row["entrant"]]["matches"]
        for cell in row["cells"]:
            mirror = next(c for c in cross["rows"][[r["entrant"] for r in rows].index(cell["entrant"])]["cells"]
                          if c["entrant"] == row["entrant"])  # fmt: skip
            assert sorted(r["mark"] for r in cell["results"]) == sorted(
                {"W": "L", "L": "W", "D": "D"}[r["mark"]] for r in mirror["results"]
            )

    # The table on the page: a real table with header cells, one row per entrant in standings
    # order, and every cell's result linking to its match (each match twice: once per seat).
    table = section(text, "cross-title")
    assert table.count('<th scope="col"') == len(rows) + 1
    headers = re.findall(r'<th scope="row">(.*?)</th>', table, re.DOTALL)
    assert [re.sub(r"^\d+\.\s*", "", html.unescape(re.sub(r"<[^>]+>", "", h)).strip()) for h in headers] == [
        row["label"] for row in rows
    ]
    cells = re.findall(r'<a class="cross-([WDL])" href="/matches/(\d+)/"[^>]*>\1 ([\d.]+)</a>', table)
    matches = Match.objects.filter(tournament=tournament)
    assert sorted({int(match) for _, match, _ in cells}) == sorted(matches.values_list("pk", flat=True))
    assert len(cells) == 2 * matches.count()
    first = table.split('<th scope="row">')[1].split("</tr>")[0]
    shown = [float(points) for _, points in re.findall(r'class="cross-([WDL])"[^>]*>\1 ([\d.]+)', first)]
    assert sum(shown) == pytest.approx(rows[0]["points"], abs=0.01 * len(shown))


def boxes(text: str) -> dict[str, str]:
    return dict(re.findall(r'<g id="bracket-([^"]+)">(.*?)</g>', text, re.DOTALL))


@pytest.mark.parametrize("format", ["single", "double"])
def test_elimination_boxes_show_each_entrants_points_and_44_pixel_replay_targets(
    version_factory: Any, format: str
) -> None:
    tournament = played(version_factory, format)
    text = page(tournament)
    drawn = boxes(text)
    played_boxes = {key: box for key, box in drawn.items() if "/matches/" in box}
    assert played_boxes
    for key, box in played_boxes.items():
        scores = re.findall(r'<text class="score( won)?"[^>]*>([\d.]+)</text>', box)
        assert len(scores) == 2, key
        # The winner's score is drawn as won, the loser's not; two seats: points 1 and 0 (or ½ each).
        values = sorted(float(value) for _, value in scores)
        assert sum(values) == pytest.approx(1.0)
        targets = re.findall(r'<rect class="tap-target" x="\d+" y="\d+" width="(\d+)" height="(\d+)"', box)
        match = Match.objects.get(pk=int(re.search(r"/matches/(\d+)/", box).group(1)))  # type: ignore[union-attr]
        assert len(targets) == min(match.games_played, 4) and all(w == h == "44" for w, h in targets)
    bands = re.findall(r'<text class="band"[^>]*>([^<]+)</text>', text)
    if format == "double":
        assert bands == ["Winners bracket", "Losers bracket", bands[2]] and bands[2].startswith("Grand final")
    else:
        assert bands == []
    champion = re.search(r"<strong>Champion: <a [^>]*>([^<]+)</a>", text)
    assert champion is not None and champion.group(1) == final_standings(tournament)[0]["label"]
    assert "Who beat whom" not in text


def test_an_upcoming_tournament_counts_down_to_its_start(version_factory: Any) -> None:
    starts = timezone.now() + timedelta(hours=2, minutes=13, seconds=30)
    tournament = tournament_create(
        name="Later cup", format="round-robin", starts_at=starts, versions=[version_factory() for _ in range(2)]
    )
    text = page(tournament)
    found = re.search(r'<p class="countdown"><strong data-countdown="([^"]+)">([^<]+)</strong>(.*?)</p>', text)
    assert found is not None
    assert found.group(2) == "Starts in 2 h 13 min"
    assert tournament.starts_at.strftime("%Y-%m-%d %H:%M") + " UTC" in found.group(3)
    assert re.search(r'<script src="[^"]*web/countdown[^"]*\.js"', text)
    assert "<script>" not in text  # no inline script: the CSP is strict
    now = timezone.now()
    assert countdown(now + timedelta(days=3, hours=4, minutes=5), now) == "starts in 3 d 4 h"
    assert countdown(now + timedelta(minutes=7, seconds=10), now) == "starts in 7 min"
    assert countdown(now + timedelta(seconds=20), now) == "starts in under a minute"
    assert tournament_start(tournament_id=tournament.pk, force=True).status == Tournament.Status.RUNNING
    assert "data-countdown" not in page(tournament)


def test_the_home_page_and_the_list_show_finished_tournaments_with_their_winners(version_factory: Any) -> None:
    first = played(version_factory, "round-robin", entrants=3, name="Spring cup")
    second = played(version_factory, "single", entrants=3, name="Summer cup")
    home = Client().get(reverse("home")).content.decode()
    listing = Client().get(reverse("tournament-list")).content.decode()
    for tournament in (first, second):
        winner = final_standings(tournament)[0]["label"]
        row = re.search(rf">{tournament.name}</a>.*?</tr>", home, re.DOTALL)
        assert row is not None, "the home page lacks a finished tournament"
        assert re.search(rf'<td class="winner"><a [^>]*>{re.escape(winner)}</a>\s*</td>', row.group(0)), winner
        past = section(listing, "past-title")
        row = re.search(rf">{tournament.name}</a>.*?</tr>", past, re.DOTALL)
        assert row is not None and re.search(
            rf'<td class="winner"><a [^>]*>{re.escape(winner)}</a>\s*</td>', row.group(0)
        )


def queries(url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert Client().get(url).status_code == 200
    return len(captured.captured_queries)


@pytest.mark.parametrize("format", ["round-robin", "double"])
def test_query_counts_do_not_grow_with_entrants(version_factory: Any, format: str) -> None:
    small = played(version_factory, format, entrants=3, name="Small")
    large = played(version_factory, format, entrants=5, name="Large")
    assert queries(reverse("tournament-detail", args=[small.pk])) == queries(
        reverse("tournament-detail", args=[large.pk])
    )
    listing, home = queries(reverse("tournament-list")), queries(reverse("home"))
    played(version_factory, format, entrants=4, name="Third")
    assert (queries(reverse("tournament-list")), queries(reverse("home"))) == (listing, home)


# --- In Chromium: axe-core on the new parts, the replay targets' size, the countdown under the CSP --


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_new_parts_pass_axe_have_44_pixel_targets_and_the_countdown_runs(
    chromium: Any, live_server: Any, version_factory: Any
) -> None:
    robin = played(version_factory, "round-robin", entrants=3, name="Robin cup")
    swiss = played(version_factory, "swiss", entrants=4, name="Swiss cup", options={"rounds": 2})
    double = played(version_factory, "double", entrants=4, name="Double cup")
    later = tournament_create(
        name="Later cup",
        format="single",
        starts_at=timezone.now() + timedelta(minutes=90, seconds=30),
        versions=[version_factory() for _ in range(2)],
    )
    pages = [
        reverse("home"),
        reverse("tournament-list"),
        *(reverse("tournament-detail", args=[t.pk]) for t in (robin, swiss, double, later)),
    ]
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    refused: list[str] = []
    page.on(
        "console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None
    )
    problems: dict[str, list[str]] = {}
    try:
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            for where in pages:
                assert page.goto(live_server.url + where).status == 200
                problems[f"{where} at {width}px"] = axe_problems(page)
        # Every replay link of the bracket is at least 44 by 44 CSS pixels, drawn at its size.
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(live_server.url + reverse("tournament-detail", args=[double.pk]))
        sizes = page.locator(".bracket a.tap").evaluate_all(
            "all => all.map(a => { const r = a.getBoundingClientRect(); return [r.width, r.height]; })"
        )
        assert sizes and all(w >= 44 and h >= 44 for w, h in sizes), sizes
        boxes = page.locator(".bracket g > a[href^='/matches/']").evaluate_all(
            "all => all.map(a => { const r = a.getBoundingClientRect(); return [r.width, r.height]; })"
        )
        assert boxes and all(w >= 44 and h >= 44 for w, h in boxes), boxes
        # The countdown: the script (a file: no inline script under the strict CSP) counts from
        # the browser's clock, here set 5 h 20 min before the start (the server says 1 h 30 min).
        page.clock.install(time=later.starts_at - timedelta(hours=5, minutes=20, seconds=30))
        page.goto(live_server.url + reverse("tournament-detail", args=[later.pk]))
        assert page.locator("[data-countdown]").text_content() == "Starts in 5 h 20 min"  # goto waits for load
        page.clock.run_for(60 * 60 * 1000)
        assert page.locator("[data-countdown]").text_content() == "Starts in 4 h 20 min"
    finally:
        context.close()
    found = [f"{where}: {problem}" for where, listed in problems.items() for problem in listed]
    assert not found, "axe-core found:\n" + "\n".join(found)
    assert refused == []
