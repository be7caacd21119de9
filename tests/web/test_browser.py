"""A new visitor's whole story in Debian's Chromium, against a live server and a real Celery worker
on PostgreSQL and Redis: sign up, create a bot, upload it, watch it validated, request a match,
open the replay and step through it with the keyboard, the slider and autoplay, then open a tournament bracket.
Every page is screenshotted into test-artifacts/screenshots/, axe-core checks it (tests/web/axe_check.py), and any
console error fails the test."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from axe_check import assert_accessible
from celery_processes import CeleryProcess, wait_for
from django.conf import settings
from django.utils import timezone
from web_browser import ConsoleWatch, screenshot, web_worker

from bots.models import BotVersion
from bots.services import builtin_bots_register
from tournaments.models import Game, Match, Tournament
from tournaments.services.matches.states import match_schedule
from tournaments.services.tournaments.creation import tournament_create
from tournaments.services.tournaments.running import tournament_start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

VISITOR_BOT = b'''"""Takes the first legal action; always legal, so it passes validation."""


def act(observation):
    return observation["legal_actions"][0]
'''


@pytest.fixture
def worker(transactional_db: Any, tmp_path: Any) -> Iterator[CeleryProcess]:
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()  # no stale messages from earlier runs
    started = web_worker(tmp_path / "worker.log")
    try:
        yield started
    finally:
        started.stop()
        redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


@pytest.fixture
def browser_page(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def board_state(page: Any) -> dict[str, Any]:
    """What the viewer shows now: the status line, the market and each line, read from the DOM."""
    return page.evaluate(
        """() => ({
            status: document.getElementById('replay-status').textContent,
            hash: location.hash,
            market: [...document.querySelectorAll('[aria-label=market] .card')].map(c => c.textContent),
            lines: [...document.querySelectorAll('.player')].map(p =>
                [...p.querySelectorAll('[aria-label^="line of seat"] .card')].map(c => c.textContent)),
            backs: document.querySelectorAll('#replay-board .card-back').length,
        })"""
    )


def label(card: int) -> str:
    return f"B{ {101: 3, 102: 3, 103: 4, 104: 4, 105: 5, 106: 5}[card] }" if card > 100 else str(card)


def expect_position(page: Any, data: dict[str, Any], index: int) -> None:
    shown = board_state(page)
    position = data["positions"][index]
    assert shown["hash"].startswith(f"#d={index}")
    assert shown["market"] == [label(card) for card in position["market"]]
    assert shown["lines"] == [[label(card) for card in player["line"]] for player in position["players"]]
    if index < len(data["decisions"]):
        assert shown["status"].startswith(f"Decision {index} (of 0–{len(data['decisions']) - 1})")
    else:
        assert shown["status"].startswith("End of the game")


def test_a_new_visitor_uploads_a_bot_plays_a_match_and_steps_through_a_replay(  # type: ignore[no-untyped-def]
    live_server, worker, browser_page
) -> None:
    page = browser_page
    builtin_bots_register(names=("random", "greedy"))
    ranked = match_schedule(versions=list(BotVersion.objects.filter(bot__is_builtin=True)), games=4, ranked=True)
    console = ConsoleWatch(page)
    base = live_server.url

    # The home page, as a stranger sees it.
    page.goto(f"{base}/")
    assert page.locator("[data-slot=tournaments]").is_visible()
    wait_for(lambda: Match.objects.get(pk=ranked.pk).status == "finished", "the ranked match", timeout=180)
    page.reload()
    assert page.locator(".leaderboard tbody tr").first.locator("a").first.inner_text() in {"random", "greedy"}
    screenshot(page, "01-home")
    assert_accessible(page, "home")
    console.check("home")

    # Sign up.
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username").fill("dora")
    page.get_by_label("Password", exact=True).fill("a-long-passphrase-42")
    page.get_by_label("Password confirmation").fill("a-long-passphrase-42")
    screenshot(page, "02-signup")
    assert_accessible(page, "signup")
    page.get_by_role("button", name="Create my account").click()
    page.wait_for_url(f"{base}/me/bots/")
    page.get_by_label("Name").fill("doras-bot")
    page.get_by_label("Description").fill("Plays the first legal action.")
    screenshot(page, "03-my-bots-empty")
    assert_accessible(page, "my bots, a welcome message")
    page.get_by_role("button", name="Create bot").click()

    # Upload: a progress bar, then the validation result, on the same page.
    page.wait_for_url(f"{base}/bots/doras-bot/upload/")
    page.get_by_label("Bot file").set_input_files(
        files=[{"name": "bot.py", "mimeType": "text/x-python", "buffer": VISITOR_BOT}]
    )
    page.get_by_role("button", name="Upload").click()
    page.get_by_text("passed validation").wait_for(timeout=120_000)
    assert page.locator("#upload-bar").evaluate("bar => bar.value") == 100
    assert BotVersion.objects.get(bot__name="doras-bot").status == "active"
    screenshot(page, "04-upload-validated")
    assert_accessible(page, "upload, validated")
    console.check("upload")

    # A test match against the greedy built-in.
    page.goto(f"{base}/matches/new/")
    page.get_by_label("Your version").select_option(label="doras-bot@v1 (active)")
    page.get_by_label("greedy@v1").check()
    page.get_by_label("Games").fill("2")
    screenshot(page, "05-match-request")
    assert_accessible(page, "match request")
    page.get_by_role("button", name="Queue the match").click()
    page.wait_for_url(re.compile(r".*/matches/\d+/$"))
    match = Match.objects.get(requested_by__username="dora")
    wait_for(lambda: Match.objects.get(pk=match.pk).status == "finished", "the test match")
    # the page follows the match by itself (web/live.js): no reload by hand, no meta refresh
    page.locator(".badge-finished").first.wait_for(timeout=30_000)
    assert page.locator("meta[http-equiv=refresh]").count() == 0
    screenshot(page, "06-match")
    assert_accessible(page, "match")
    console.check("match")

    # The replay: keyboard, slider, turn steps, viewpoint and permalink. The page carries the log;
    # the positions come as JSON (the game's view.json), gzipped as the browser asks.
    with page.expect_response(re.compile(r".*/games/\d+/view\.json$")) as view_response:
        page.get_by_role("link", name="Replay of game 0").click()
    page.wait_for_selector("#replay-board .player")
    game = Game.objects.get(match=match, index=0)
    assert view_response.value.headers.get("content-encoding") == "gzip"
    data = view_response.value.json()
    assert page.locator("#replay-data, script[type='application/json']").count() == 0
    page_response = page.request.get(f"{base}/games/{game.pk}/replay/", headers={"Accept-Encoding": "gzip"})
    assert page_response.headers.get("content-encoding") == "gzip"
    decisions = data["decisions"]
    assert [d["action"] for d in decisions] == [action for _seat, action in game.replay_document()["actions"]]
    expect_position(page, data, 0)
    # The score chart (a line per seat, a marker at the position shown) and the legend.
    chart = page.locator("#replay-chart svg")
    assert chart.locator("polyline.series").count() == len(data["players"])
    assert (
        chart.locator("line.marker").get_attribute("x1")
        == chart.locator("polyline.series").first.get_attribute("points").split(" ")[0].split(",")[0]
    )
    legend = page.get_by_role("region", name="Legend")
    assert legend.get_by_text("the heart jackpot").is_visible() and legend.get_by_text("bet tokens").is_visible()
    screenshot(page, "07-replay-start")
    assert_accessible(page, "replay")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect_position(page, data, 3)
    page.keyboard.press("ArrowLeft")
    expect_position(page, data, 2)
    turn = decisions[2]["turn"]
    page.keyboard.press("ArrowDown")  # to the start of the next turn
    following = next(i for i, d in enumerate(decisions) if d["turn"] > turn)
    expect_position(page, data, following)
    page.keyboard.press("ArrowUp")
    expect_position(page, data, next(i for i, d in enumerate(decisions) if d["turn"] == turn))
    page.keyboard.press("PageDown")
    second_round = next(i for i, d in enumerate(decisions) if d["round"] == 2)
    expect_position(page, data, second_round)
    page.keyboard.press("End")
    expect_position(page, data, len(decisions))
    assert page.locator("#replay-decision").get_by_text("End of the game").is_visible()
    page.keyboard.press("Home")
    expect_position(page, data, 0)
    # Autoplay at 4x: it moves on by itself, and stops where it is paused.
    page.get_by_label("Speed").select_option(label="4×")
    page.get_by_role("button", name="Play").click()
    page.wait_for_function("() => /^#d=([3-9]|\\d\\d)/.test(location.hash)")
    page.get_by_role("button", name="Pause").click()
    paused = int(board_state(page)["hash"].removeprefix("#d=").split("&")[0])
    assert page.get_by_role("button", name="Play").get_attribute("aria-pressed") == "false"
    page.wait_for_timeout(800)  # three steps' worth at 4x: none is taken
    expect_position(page, data, paused)
    page.keyboard.press("Home")
    middle = len(decisions) // 2
    page.locator("#replay-slider").fill(str(middle))
    expect_position(page, data, middle)
    # The hands as one seat sees them: the other seat's hand is face down.
    index, holder = next(
        (i, seat)
        for i, position in enumerate(data["positions"])
        for seat, player in enumerate(position["players"])
        if player["hand"]
    )
    page.locator("#replay-slider").fill(str(index))
    expect_position(page, data, index)
    assert board_state(page)["backs"] == 0
    page.keyboard.press(str(1 - holder))
    assert board_state(page)["backs"] == len(data["positions"][index]["players"][holder]["hand"]) > 0
    assert page.locator("#replay-permalink").get_attribute("href") == f"#d={index}&seat={1 - holder}"
    screenshot(page, "08-replay-seat-view")
    page.keyboard.press("a")
    assert board_state(page)["backs"] == 0
    page.goto(f"{base}/games/{game.pk}/replay/#d={middle + 5}")
    page.wait_for_selector("#replay-board .player")
    expect_position(page, data, middle + 5)
    assert board_state(page)["backs"] == 0  # no seat in the permalink: every hand is shown
    console.check("replay")

    # The other pages, for the screenshots (and the console).
    for name, path in (
        ("09-bot", "/bots/doras-bot/"),
        ("10-bot-builtin", "/bots/greedy/"),
        ("11-version", "/bots/doras-bot/v1/"),
        ("12-my-bots", "/me/bots/"),
        ("13-api-token", "/me/token/"),
    ):
        page.goto(f"{base}{path}")
        screenshot(page, name)
        console.check(path)
    assert page.locator("#token").input_value()

    # A tournament between the built-in bots and the new one, played by the worker: its bracket.
    builtin_bots_register(names=("heuristic",))
    entrants = list(BotVersion.objects.filter(status=BotVersion.Status.ACTIVE).order_by("id"))[:4]
    tournament = tournament_create(
        name="Browser cup", format="single", starts_at=timezone.now(), versions=entrants, games_per_pairing=2
    )
    tournament_start(tournament_id=tournament.pk)
    wait_for(
        lambda: Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED,
        "the tournament",
        timeout=240,
    )
    page.goto(f"{base}/tournaments/{tournament.pk}/")
    assert page.locator("svg a[href^='/matches/']").count() == 3  # two semi-finals and the final
    assert "Champion:" in page.content()
    screenshot(page, "14-tournament-bracket")
    assert_accessible(page, "tournament bracket")
    console.check("tournament")
    page.locator("svg a[href^='/matches/']").first.click()
    page.wait_for_url(re.compile(r".*/matches/\d+/$"))
    assert page.locator("a[href$='/replay/']").count() >= 2
    console.check("tournament match")

    # A phone's width.
    page.set_viewport_size({"width": 390, "height": 844})
    for name, path in (
        ("15-phone-home", "/"),
        ("16-phone-replay", f"/games/{game.pk}/replay/#d={middle}"),
        ("17-phone-match", f"/matches/{match.pk}/"),
        ("18-phone-tournament", f"/tournaments/{tournament.pk}/"),
    ):
        page.goto(f"{base}{path}")
        screenshot(page, name)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} scrolls sideways on a phone ({width}px)"
    console.check("phone")
