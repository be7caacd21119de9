"""The strict Content-Security-Policy (lineit_platform/security.py) holds and breaks nothing: every
response carries it; no template, and no page as rendered, has an inline script, a ``<style>`` or
a ``style`` attribute for it to block; and Debian's Chromium goes through the pages, the admin,
Swagger UI and Redoc with no violation reported, the documentation pages drawn."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from lineit_platform.api.docs import REDOC_POLICY, REDOC_STYLES
from lineit_platform.security import HEADER, SITE_POLICY
from tournaments.models import Game
from tournaments.services.tournaments.creation import tournament_create
from tournaments.services.tournaments.running import tournament_start

ROOT = Path(settings.BASE_DIR)
TEMPLATE_FOLDERS = [ROOT / "templates", *ROOT.glob("*/templates"), *ROOT.glob("lineit_platform/*/templates")]

# What the policy blocks in markup: a <script> with a body (no src; a JSON data block such as
# json_script's is not run, so not blocked), a <style> element, a style attribute, an
# event-handler attribute, a javascript: URL.
BLOCKED = {
    "inline script": re.compile(
        r"<script\b(?![^>]*\bsrc\s*=)(?![^>]*\btype=\"application/json\")[^>]*>\s*\S", re.IGNORECASE
    ),
    "<style> element": re.compile(r"<style\b", re.IGNORECASE),
    "style attribute": re.compile(r"<[a-z][^>]*\sstyle\s*=", re.IGNORECASE),
    "event handler attribute": re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.IGNORECASE),
    "javascript: URL": re.compile(r"javascript:", re.IGNORECASE),
}
TEMPLATE_COMMENTS = re.compile(r"\{#.*?#\}|\{% comment %\}.*?\{% endcomment %\}", re.DOTALL)


def blocked_in(html: str) -> list[str]:
    return [f"{what}: {found.group()[:80]!r}" for what, pattern in BLOCKED.items() for found in pattern.finditer(html)]


def test_the_policy_is_strict() -> None:
    directives = dict(part.split(" ", 1) for part in SITE_POLICY.split("; "))
    assert directives["default-src"] == directives["script-src"] == directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == directives["object-src"] == directives["base-uri"] == "'none'"
    assert "unsafe" not in SITE_POLICY and "http" not in SITE_POLICY and "*" not in SITE_POLICY


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/", "/tournaments/", "/accounts/login/", "/api/", "/api/leaderboard/", "/api/schema/", "/admin/login/",
             "/api/docs/", "/api/docs/?script", "/no/such/page/", "/static/web/site.css"],
)  # fmt: skip
def test_every_response_carries_the_policy(client, path: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(path)
    assert response.status_code in (200, 404), (path, response.status_code)
    assert response.headers[HEADER] == SITE_POLICY


SECURITY_HEADERS = (HEADER, "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy", "Strict-Transport-Security")


@pytest.mark.django_db
@override_settings(SECURE_HSTS_SECONDS=3600)
@pytest.mark.parametrize(
    ("method", "path", "length", "status"),
    [("GET", "/", None, 200), ("POST", "/me/bots/", 10**9, 413), ("POST", "/api/bots/", 10**9, 413),
     ("POST", "/accounts/login/", 10**9, 413), ("GET", "/no/such/page/", None, 404),
     ("GET", "/api/nowhere/", None, 404), ("DELETE", "/api/bots/", None, 401)],
)  # fmt: skip
def test_a_refusal_carries_the_same_security_headers_as_a_page(method: str, path: str, length, status: int) -> None:  # type: ignore[no-untyped-def]
    # A request refused before any view (a body over REQUEST_MAX_BYTES) is answered with the
    # headers of every other response: the policy, no framing, no sniffing, HSTS when configured.
    extra = {"CONTENT_LENGTH": str(length)} if length else {}
    response = Client(raise_request_exception=False).generic(method, path, b"", secure=True, **extra)
    assert response.status_code == status
    missing = [name for name in SECURITY_HEADERS if name not in response.headers]
    assert not missing, (path, status, missing)
    assert response.headers[HEADER] == SITE_POLICY and response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Strict-Transport-Security"] == "max-age=3600"


@pytest.mark.django_db
def test_redoc_may_add_only_its_own_two_styles_and_its_search_worker(client) -> None:  # type: ignore[no-untyped-def]
    header = client.get("/api/redoc/").headers[HEADER]
    assert header == REDOC_POLICY
    directives = dict(part.split(" ", 1) for part in header.split("; "))
    assert directives.pop("style-src") == " ".join(("'self'", *REDOC_STYLES))
    assert directives.pop("worker-src") == "'self' blob:"
    assert directives == dict(
        part.split(" ", 1) for part in SITE_POLICY.split("; ") if not part.startswith("style-src")
    )


def test_no_template_has_markup_the_policy_blocks() -> None:
    templates = [path for folder in TEMPLATE_FOLDERS for path in folder.rglob("*.html")]
    assert len(templates) > 20
    found = {
        str(path.relative_to(ROOT)): problems
        for path in templates
        if (problems := blocked_in(TEMPLATE_COMMENTS.sub("", path.read_text())))
    }
    assert found == {}


@pytest.mark.django_db
def test_no_rendered_page_has_markup_the_policy_blocks(client, played, alice, staff) -> None:  # type: ignore[no-untyped-def]
    good, match = played["good"], played["first"]
    tournament = tournament_create(
        name="Policy cup", format="single", starts_at=timezone.now(), versions=[good, played["other"]]
    )
    tournament_start(tournament_id=tournament.pk)
    game = Game.objects.filter(match=match).first()
    assert game is not None
    public = [
        reverse("home"),
        reverse("bot-detail", args=["alices-bot"]),  # rating plot and head-to-head intervals
        reverse("version-detail", args=["alices-bot", good.number]),
        reverse("match-detail", args=[match.pk]),
        reverse("replay-viewer", args=[game.pk]),
        reverse("tournament-list"),
        reverse("tournament-detail", args=[tournament.pk]),  # the bracket
        reverse("login"),
        reverse("signup"),
        "/no/such/page/",
    ]
    owner = [
        reverse("my-bots"),
        reverse("bot-upload", args=["alices-bot"]),
        reverse("match-request"),
        reverse("api-token"),
    ]
    admin = ["/admin/", "/admin/bots/botversion/", f"/admin/bots/botversion/{good.pk}/change/", f"/admin/tournaments/match/{match.pk}/change/"]  # fmt: skip
    for user, paths in ((None, public), (alice, owner), (staff, admin)):
        if user is not None:
            client.force_login(user)
        for path in paths:
            response = client.get(path)
            assert response.status_code in (200, 404), (path, response.status_code)
            assert blocked_in(response.content.decode()) == [], path


# --- In Chromium --------------------------------------------------------------------------------

# Added to every page before its own scripts run: the browser's own reports of what it blocked.
WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(event.violatedDirective + " " + (event.blockedURI || "inline") + " " + event.sourceFile + ":" + event.lineNumber);
});
"""


class Visit:
    """A browser context that fails on any policy violation or console error it saw."""

    def __init__(self, browser: Any, base: str) -> None:
        self.base = base
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.set_default_timeout(20_000)
        self.context.add_init_script(WATCH_VIOLATIONS)
        self.page = self.context.new_page()
        self.console: list[str] = []
        self.page.on("console", lambda message: self.console.append(message.text) if message.type == "error" else None)

    def open(self, path: str) -> Any:
        self.console.clear()
        response = self.page.goto(self.base + path)
        assert response is not None and response.status in (200, 404), (path, response and response.status)
        return self.page

    def check(self, path: str, blocked_as_intended: str | None = None) -> list[str]:
        """No violation, but loads from ``blocked_as_intended`` (another site) the policy refused:
        returns those."""
        violations = self.page.evaluate("window.__violations")
        intended = [v for v in violations if blocked_as_intended and blocked_as_intended in v]
        assert [v for v in violations if v not in intended] == [], (path, violations)
        others = [text for text in self.console if "Content Security Policy" in text]
        assert [text for text in others if not (blocked_as_intended and blocked_as_intended in text)] == [], path
        return intended

    def close(self) -> None:
        self.context.close()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_chromium_sees_no_violation_on_the_pages_the_admin_and_the_api_documentation(  # type: ignore[no-untyped-def]
    chromium, live_server, played, alice, staff
) -> None:
    good, match = played["good"], played["first"]
    game = Game.objects.filter(match=match).first()
    assert game is not None
    for user, password in ((alice, "alice-password-1"), (staff, "staff-password-1")):
        user.set_password(password)
        user.save()
    visit = Visit(chromium, live_server.url)
    try:
        for path in [
            "/",
            "/bots/alices-bot/",
            f"/bots/alices-bot/v{good.number}/",
            f"/matches/{match.pk}/",
            f"/games/{game.pk}/replay/",
            "/tournaments/",
            "/no/such/page/",
        ]:
            visit.open(path)
            visit.check(path)
        page = visit.open(f"/games/{game.pk}/replay/")
        page.wait_for_selector("#replay-board .player")  # its positions fetched (connect-src 'self')
        page.keyboard.press("Home")
        page.keyboard.press("p")  # autoplay: the replay viewer's script runs under the policy
        page.wait_for_function("() => location.hash !== '#d=0'")
        page.keyboard.press("p")
        page.keyboard.press("End")
        assert page.locator("#replay-chart svg polyline.series").count() == 2  # the chart's SVG, drawn
        visit.check("the replay viewer, stepped and played")

        page = visit.open("/api/docs/")
        page.wait_for_selector(".swagger-ui .info .title")
        assert "Line-it Arena API" in page.inner_text(".swagger-ui .info .title")
        page.click(".opblock-summary >> nth=0")  # an operation opens (React renders it)
        page.wait_for_selector(".opblock-body")
        visit.check("/api/docs/")
        page = visit.open("/api/redoc/")
        page.wait_for_selector("h1")
        assert "Line-it Arena API" in page.inner_text("h1")
        page.fill("input.search-input", "leaderboard")  # the search worker runs
        page.wait_for_selector("[data-role='search:results'] li")
        # Redoc's "API docs by Redocly" logo is on Redocly's site: refused, nothing else is.
        assert visit.check("/api/redoc/", blocked_as_intended="https://cdn.redoc.ly/")

        page = visit.open("/accounts/login/")
        page.fill("input[name=username]", "alice")
        page.fill("input[name=password]", "alice-password-1")
        page.click("form.form button[type=submit]")
        page.wait_for_url(f"{live_server.url}/me/bots/")
        visit.check("/me/bots/ after signing in")
        for path in ["/bots/alices-bot/upload/", "/matches/new/", "/me/token/"]:
            visit.open(path)
            visit.check(path)
    finally:
        visit.close()

    admin = Visit(chromium, live_server.url)
    try:
        page = admin.open("/admin/login/")
        page.fill("input[name=username]", "staff")
        page.fill("input[name=password]", "staff-password-1")
        page.click("input[type=submit]")
        page.wait_for_url(f"{live_server.url}/admin/")
        admin.check("/admin/")
        for path in [
            "/admin/bots/botversion/",
            f"/admin/bots/botversion/{good.pk}/change/",
            f"/admin/tournaments/match/{match.pk}/change/",
            "/admin/auth/user/add/",
        ]:
            admin.open(path)
            admin.check(path)
        page = admin.open("/admin/tournaments/tournament/add/")  # date and time widgets
        page.click(".datetimeshortcuts a >> nth=0")  # "Today" of the first date: the admin's scripts
        assert page.input_value(".vDateField >> nth=0")
        admin.check("the admin's date shortcut")
    finally:
        admin.close()
