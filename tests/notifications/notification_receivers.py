"""Real receivers for the notification tests: an SMTP server (aiosmtpd) and an HTTP server (the
standard library's, in a thread) on 127.0.0.1, each keeping what it received; and a stand-in for
the housekeeping worker that takes the notification tasks off the real Redis queue and runs them
in this process (as a worker would, its retries run at once: eagerly)."""

from __future__ import annotations

import email
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message as EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller
from django.test import TestCase

from bots.code_cache import version_source
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit_platform.celery import app
from notifications import tasks as _tasks  # noqa: F401 (registers them, as the worker does)

TASK_PREFIX = "notifications.tasks."


class _Collector:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.fail_with: str | None = None  # an SMTP reply such as "451 try later"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.fail_with is not None:
            return self.fail_with
        message = email.message_from_bytes(envelope.content)
        message["X-Envelope-To"] = ", ".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"


@dataclass
class SmtpServer:
    host: str
    port: int
    collector: _Collector

    @property
    def messages(self) -> list[EmailMessage]:
        return self.collector.messages


@contextmanager
def smtp_server() -> Iterator[SmtpServer]:
    collector = _Collector()
    with socket.socket() as probe:  # a free port (aiosmtpd's start-up check cannot use port 0)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(collector, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield SmtpServer(host="127.0.0.1", port=port, collector=collector)
    finally:
        controller.stop()


@dataclass
class HttpReceiver:
    """What it answers (``status``, after ``delay`` seconds, ``location`` for a redirect) and
    what it received (``requests``: method, path, headers, JSON body)."""

    status: int = 200
    delay: float = 0.0
    location: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextmanager
def http_receiver() -> Iterator[HttpReceiver]:
    receiver = HttpReceiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            receiver.requests.append(
                {"method": "POST", "path": self.path, "headers": dict(self.headers), "json": json.loads(body)}
            )
            if receiver.delay:
                time.sleep(receiver.delay)
            self.send_response(receiver.status)
            if receiver.location:
                self.send_header("Location", receiver.location)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


def housekeeping_drain() -> None:
    """Empty the housekeeping queue (a test starts with none of its notification tasks left)."""
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue("housekeeping")
        while True:
            try:
                queue.get(block=False).ack()
            except queue.Empty:
                break
        queue.close()


def run_notification_tasks(limit: int = 100) -> list[str]:
    """Take the tasks waiting on the real housekeeping queue (Redis) and run the notification
    ones here, eagerly (a retry runs at once), until none is left, as the housekeeping worker
    would. Returns the names run; any other task (a ladder tick sent by an activation) is taken
    off too, listed as skipped."""
    ran: list[str] = []
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue("housekeeping")
        for _ in range(limit):
            try:
                message = queue.get(block=False)
            except queue.Empty:
                break
            name = message.headers.get("task", "")
            args, kwargs, _embed = message.decode()
            message.ack()
            if name.startswith(TASK_PREFIX):
                with committed():  # what the task sends after its commit is sent
                    app.tasks[name].apply(args=args, kwargs=kwargs)
                ran.append(name.removeprefix(TASK_PREFIX))
            else:
                ran.append(f"skipped {name}")
        queue.close()
    return ran


def play_in_process(match: Any) -> Any:
    """Claim a queued match, play it here with in-process players and record it (as
    tests/tournaments/tournament_helpers.py does)."""
    from tournaments.models import Match
    from tournaments.services.matches.results import match_record_result
    from tournaments.services.matches.states import match_claim, match_spec

    claimed = match_claim(match_id=match.pk, worker="tests")
    assert claimed is not None
    versions = [entrant.version for entrant in claimed.entrants.select_related("version__bot").order_by("index")]
    result = run_match(match_spec(claimed), [InProcessPlayer(version_source(version)) for version in versions])
    assert match_record_result(match_id=match.pk, attempt=claimed.attempts, result=result)
    return Match.objects.get(pk=match.pk)


def committed() -> Any:
    """Inside a test's transaction, run what is sent "after commit" when the block ends, as a
    commit would (Django's captureOnCommitCallbacks)."""
    return TestCase.captureOnCommitCallbacks(execute=True)
