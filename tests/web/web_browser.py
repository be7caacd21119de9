"""Helpers for the browser tests: Debian's Chromium driven by Playwright, a Celery worker
subprocess, screenshots and console errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection

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
CELERY = Path(sys.executable).with_name("celery")


class Worker:
    """A real Celery worker on the test database (a subprocess of its own session)."""

    def __init__(self, log: Path) -> None:
        database = connection.settings_dict
        environment = os.environ | {
            "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
            "MATCH_RETRY_DELAY_SECONDS": "1",
        }
        self.log = log.open("ab")
        self.process = subprocess.Popen(
            [
                str(CELERY),
                *("-A", "lineit_platform.celery", "worker", "-l", "info", "-c", "1"),
                *("--without-gossip", "--without-mingle", "--without-heartbeat"),
                *("-n", f"web{time.monotonic_ns()}@%h"),
            ],
            env=environment,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.log.close()


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


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
