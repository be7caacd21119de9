"""Usable by everyone: the text colours of site.css reach 4.5:1 against what they are drawn on,
each card colour carries its jackpot's symbol, the 500 page is the site's own, and axe-core
(tests/web/axe_check.py) finds no critical or serious violation on any page in Chromium."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from axe_check import axe_problems
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import include, path, reverse
from django.utils import timezone

from lineit_platform.web.docs import PAGES
from tournaments.models import Game
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule
from tournaments.services.tournaments.creation import tournament_create
from tournaments.services.tournaments.running import tournament_start

SITE_CSS = Path(settings.BASE_DIR) / "lineit_platform" / "web" / "static" / "web" / "site.css"

# (text colour, background): every pair of site.css's custom properties that text is drawn in.
TEXT_PAIRS = [
    ("ink", "bg"), ("ink", "panel"), ("muted", "bg"), ("muted", "panel"), ("accent", "bg"),
    ("accent", "panel"), ("accent-ink", "accent"), ("danger", "panel"), ("ok", "panel"),
    ("card-ink", "red"), ("card-ink", "blue"), ("card-ink", "green"), ("card-ink", "bet"),
    ("card-ink", "bet-stripe"), ("yellow-ink", "yellow"), ("red", "panel"), ("blue", "panel"),
    ("green", "panel"), ("yellow-text", "panel"),
]  # fmt: skip


def custom_properties(css: str) -> dict[str, str]:
    root = re.search(r":root\s*\{(.*?)\}", css, re.DOTALL)
    assert root is not None, "site.css has no :root block"
    body = re.sub(r"/\*.*?\*/", "", root.group(1), flags=re.DOTALL)
    return {name: value.strip() for name, value in re.findall(r"--([\w-]+)\s*:\s*([^;]+);", body)}


def luminance(colour: str) -> float:
    digits = colour.removeprefix("#")
    assert re.fullmatch(r"[0-9a-fA-F]{3}|[0-9a-fA-F]{6}", digits), f"not a hex colour: {colour}"
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: str, other: str) -> float:
    """WCAG 2's contrast ratio of two colours."""
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_contrast_ratio_is_wcags() -> None:
    assert contrast("#ffffff", "#000000") == pytest.approx(21)
    assert contrast("#ffffff", "#2c9a4b") == pytest.approx(3.6, abs=0.01)  # the old green card


def test_every_text_colour_of_the_site_reaches_4_5_to_1() -> None:
    colours = custom_properties(SITE_CSS.read_text())
    ratios = {
        f"{text} on {background}": contrast(colours[text], colours[background]) for text, background in TEXT_PAIRS
    }
    assert {pair: round(ratio, 2) for pair, ratio in ratios.items() if ratio < 4.5} == {}


def test_every_card_colour_carries_its_jackpot_symbol_and_the_bet_card_a_pattern() -> None:
    css = SITE_CSS.read_text()
    for colour, symbol in (("red", "2665"), ("blue", "2666"), ("green", "2766"), ("yellow", "2605")):
        rule = re.search(rf"\.card-{colour}::after[^{{]*\{{\s*content:\s*\"\\\\?{symbol}\"", css)
        assert rule is not None, f"no symbol on the {colour} card"
    bet = re.search(r"\.card-bet\s*\{([^}]*)\}", css)
    assert bet is not None and "repeating-linear-gradient" in bet.group(1) and "dashed" in bet.group(1)


# --- The 500 page ---------------------------------------------------------------------------------


def broken_view(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a view that fails")


urlpatterns = [path("broken/", broken_view), path("", include("lineit_platform.urls"))]


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__, DEBUG=False)
def test_a_failing_view_answers_the_sites_500_page_with_no_query() -> None:
    client = Client(raise_request_exception=False)
    client.get("/")  # the session and the cache are warm: what follows counts only the 500
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/broken/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong" in html and "a view that fails" not in html and "Traceback" not in html
    assert 'href="/static/web/site.css"' in html and 'class="site-header"' in html
    assert [q["sql"] for q in queries.captured_queries] == []  # neither the page nor anything it uses
    assert 'lang="en"' in html and "<title>Server error" in html


# --- axe-core in Chromium -------------------------------------------------------------------------


LONG_STDERR_BOT = b"""import sys

def act(observation):
    for line in range(60):
        print(f"frame {line}: " + "a long traceback line that does not fit the box " * 3, file=sys.stderr)
    raise RuntimeError("boom")
"""


def the_pages(played: dict[str, Any], alice: Any, bob: Any, version_factory: Any) -> list[tuple[Any, list[str]]]:
    """Every page of the project's own, with who opens it (None: anyone)."""
    good, match = played["good"], played["first"]
    # A failure whose stderr is longer and wider than its box: a region that scrolls.
    verbose = version_factory(bot__owner=bob, bot__name="bobs-verbose-bot", code=LONG_STDERR_BOT)
    scheduled = match_schedule(versions=[good, verbose], games=1, ranked=False, seed=3)
    failed = match_execute(match_id=scheduled.pk, worker="test")
    assert failed is not None and failed.failures.exists()
    tournament = tournament_create(
        name="Axe cup", format="single", starts_at=timezone.now(), versions=[good, played["other"]]
    )
    tournament_start(tournament_id=tournament.pk)
    game = Game.objects.filter(match=match).first()
    assert game is not None
    anyone = [
        reverse("home"),
        reverse("bot-detail", args=["alices-bot"]),
        reverse("bot-detail", args=["bobs-bot"]),  # its failures
        reverse("version-detail", args=["alices-bot", good.number]),
        reverse("match-detail", args=[match.pk]),
        reverse("replay-viewer", args=[game.pk]),
        reverse("tournament-list"),
        reverse("tournament-detail", args=[tournament.pk]),  # the bracket
        reverse("match-list"),
        reverse("match-list") + "?status=finished&ranked=yes",
        reverse("bot-list"),
        reverse("leaderboard"),
        reverse("user-detail", args=["alice"]),
        reverse("login"),
        reverse("signup"),
        reverse("password-reset"),
        reverse("docs"),
        *(reverse("doc", args=[name]) for name in PAGES),
        reverse("api-docs"),
        "/no/such/page/",
        "/broken/",  # the 500 page
    ]
    owner = [
        reverse("my-bots"),
        reverse("bot-upload", args=["alices-bot"]),
        reverse("match-request"),
        reverse("api-token"),
        reverse("my-notifications"),
    ]
    crashed = [  # the failing bot's owner reads its failure's message and stderr
        reverse("match-detail", args=[match.pk]),
        reverse("match-detail", args=[failed.pk]),
        reverse("version-detail", args=["bobs-bot", played["crashing"].number]),
    ]
    return [(None, anyone), (alice, owner), (bob, crashed)]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@override_settings(ROOT_URLCONF=__name__, DEBUG=False)
def test_axe_finds_nothing_critical_or_serious_on_any_page(
    chromium, live_server, played, alice, bob, version_factory
) -> None:  # type: ignore[no-untyped-def]
    problems: dict[str, list[str]] = {}
    for user, paths in the_pages(played, alice, bob, version_factory):
        context = chromium.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(20_000)
        page = context.new_page()
        try:
            if user is not None:
                context.add_cookies([session_cookie(user, live_server.url)])
            for where in paths:
                response = page.goto(live_server.url + where)
                assert response is not None and response.status in (200, 404, 500), (
                    where,
                    response and response.status,
                )
                if where.startswith("/games/"):
                    page.wait_for_selector("#replay-board .player")
                if where.startswith("/api/docs/"):
                    page.wait_for_selector(".swagger-ui .info .title")
                page.locator("details").evaluate_all("all => all.forEach(d => { d.open = true; })")
                problems[f"{where} ({user or 'anyone'})"] = axe_problems(page)
            # A phone: the same pages, reflowed (what scrolls sideways must be reachable by keyboard);
            # two of the documents stand for the rest.
            page.set_viewport_size({"width": 390, "height": 844})
            for where in [p for p in paths if not p.startswith("/docs/") or p in ("/docs/rules/", "/docs/api/")]:
                page.goto(live_server.url + where)
                if where.startswith("/games/"):
                    page.wait_for_selector("#replay-board .player")
                if where.startswith("/api/docs/"):
                    page.wait_for_selector(".swagger-ui .info .title")
                problems[f"{where} on a phone ({user or 'anyone'})"] = axe_problems(page)
            page.set_viewport_size({"width": 1280, "height": 900})
            if user == alice:  # a flash message: a bot created, its upload page says so
                page.goto(live_server.url + reverse("my-bots"))
                page.get_by_label("Name").fill("alices-second-bot")
                page.get_by_role("button", name="Create bot").click()
                page.locator(".messages li").wait_for()
                problems["the upload page with a message (alice)"] = axe_problems(page)
        finally:
            context.close()
    assert len(problems) >= 20
    found = [f"{where}: {problem}" for where, listed in problems.items() for problem in listed]
    assert not found, "axe-core found:\n" + "\n".join(found)


def session_cookie(user: Any, base: str) -> dict[str, Any]:
    client = Client()
    client.force_login(user)
    return {
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": base,
    }


@pytest.mark.django_db
def test_the_footers_api_link_leads_to_the_guide_and_the_reference(client) -> None:  # type: ignore[no-untyped-def]
    footer = client.get(reverse("home")).content.decode().split('<footer class="site-footer', 1)[1]
    assert f'href="{reverse("doc", args=["api"])}"' in footer and f'href="{reverse("api-docs")}"' in footer
    assert 'href="/api/"' not in footer
