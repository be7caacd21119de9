"""Fixtures for the pages: matches really played in the sandbox, so every page shows real games."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import caches

from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    """Every test starts with no sign-in, upload or match request counted (the pages share the
    API's throttle counters, in the cache "api")."""
    caches["api"].clear()
    yield
    caches["api"].clear()


CRASHING_BOT = b"""import sys

def act(observation):
    print("traceback only bob may read", file=sys.stderr)
    raise RuntimeError("boom")
"""


@pytest.fixture
def played(alice: Any, bob: Any, version_factory: Any) -> dict[str, Any]:
    """alice's good bot against bob's crashing bot (a ranked match of 2 games, played in the
    sandbox), and a second ranked match of alice's bot against a third bot."""
    good = version_factory(bot__owner=alice, bot__name="alices-bot")
    crashing = version_factory(bot__owner=bob, bot__name="bobs-bot", code=CRASHING_BOT)
    other = version_factory(bot__name="carols-bot")
    first = match_schedule(versions=[good, crashing], games=2, ranked=True, seed=1)
    first = match_execute(match_id=first.pk, worker="test")
    second = match_schedule(versions=[good, other], games=2, ranked=True, seed=2)
    second = match_execute(match_id=second.pk, worker="test")
    assert first is not None and second is not None and first.status == second.status == "finished"
    return {"good": good, "crashing": crashing, "other": other, "first": first, "second": second}


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Chromium through Playwright, one per test module (web_browser.py: CHROMIUM, CHROMIUM_ARGS)."""
    import os

    from playwright.sync_api import sync_playwright
    from web_browser import CHROMIUM, CHROMIUM_ARGS

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (or set CHROMIUM)")
    # Playwright's sync API keeps an event loop running in this thread; Django's ORM refuses to
    # run "in an async context" unless told that this is deliberate (the tests' own queries).
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
    try:
        yield browser
    finally:
        browser.close()
        playwright.stop()
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous
