"""Helpers for the browser tests: Debian's Chromium driven by Playwright, a Celery worker
subprocess, screenshots and console errors."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from celery_processes import CeleryProcess, worker
from django.conf import settings

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(settings.BASE_DIR) / "test-artifacts" / "screenshots"


def web_worker(log: Path) -> CeleryProcess:
    """A real Celery worker on the test database (a subprocess of its own session)."""
    return worker(log, environment={"MATCH_RETRY_DELAY_SECONDS": "1"})


class ConsoleWatch:
    """Collects console errors and uncaught exceptions of a page."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text} ({message.location})")

    def check(self, where: str) -> None:
        assert not self.errors, f"console errors on {where}: {self.errors}"


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
