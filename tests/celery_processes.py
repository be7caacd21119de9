"""Real Celery processes (a worker, the beat) on the test database, each in a session of its own,
for the tests that go through Redis and a worker end to end; and waiting for what they do."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from django.db import connection

CELERY = Path(sys.executable).with_name("celery")


class CeleryProcess:
    """``celery -A lineit_platform.celery <arguments>`` with the test database's URL, logging to
    ``log``; stop() ends its whole session."""

    def __init__(self, arguments: list[str], log: Path, environment: dict[str, str] | None = None) -> None:
        database = connection.settings_dict
        variables = os.environ | (environment or {})
        variables["DATABASE_URL"] = (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
        )
        self.log = log.open("ab")
        self.process = subprocess.Popen(
            [str(CELERY), "-A", "lineit_platform.celery", *arguments],
            env=variables,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Send ``sig`` to the session (SIGTERM: a warm shutdown), SIGKILL after 30 s."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.log.close()


def worker(
    log: Path,
    concurrency: int = 1,
    environment: dict[str, str] | None = None,
    queues: tuple[str, ...] = ("interactive", "bulk", "housekeeping"),
) -> CeleryProcess:
    """A worker with a unique name, without the cluster chatter the tests do not need, on
    ``queues`` (by default all three, in the order a worker of them all would name them)."""
    arguments = ["worker", "-l", "info", "-c", str(concurrency), "--without-gossip", "--without-mingle"]
    arguments += ["-Q", ",".join(queues)]
    arguments += ["--without-heartbeat", "-n", f"test{time.monotonic_ns()}@%h"]
    return CeleryProcess(arguments, log, environment)


def wait_for(
    condition: Callable[[], bool], what: str, timeout: float = 120.0, tick: Callable[[], object] | None = None
) -> None:
    """Poll ``condition`` (calling ``tick`` first, if given) until it holds; fail naming ``what``."""
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if tick is not None:
            tick()
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")
