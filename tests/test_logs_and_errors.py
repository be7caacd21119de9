"""Logs and error tracking as an operator turns them on: LOG_FORMAT=json makes every log line one
JSON object (a task's lines name the task), and SENTRY_DSN sends a failed task and an error log
to a real HTTP server speaking for Sentry here (sentry-sdk not even imported without it). Each in
a process of its own, as settings are read once."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import logging, django
django.setup()
from lineit_platform.celery import app

@app.task(name="tests.a_task_that_logs_then_fails")
def a_task():
    logging.getLogger("lineit.test").info("inside the task")
    connection_parameters = {"user": "lineit", "password": "Sup3rS3cret-in-a-dict"}  # as Django's are
    url = "postgres://lineit:Sup3rS3cret-in-a-url@db:5432/lineit"
    raise ValueError("boom in a task")

logging.getLogger("lineit.test").warning("hello %s", "operator")
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("lineit.test").exception("a handled error")
a_task.apply()
import sys
print("sentry loaded" if "sentry_sdk" in sys.modules else "sentry not loaded", file=sys.stdout)
if "sentry_sdk" in sys.modules:
    import sentry_sdk
    print(sorted(sentry_sdk.get_client().integrations), file=sys.stdout)
    sentry_sdk.flush(timeout=10)
"""


def run(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    variables = os.environ | {"DJANGO_SETTINGS_MODULE": "lineit_platform.settings"} | environment
    return subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, env=variables, capture_output=True, text=True, timeout=120
    )


def test_json_logs_are_one_object_a_line_and_name_the_task() -> None:
    done = run({"LOG_FORMAT": "json"})
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines()]  # every line parses
    hello = next(line for line in lines if line["message"] == "hello operator")
    assert hello["level"] == "WARNING" and hello["logger"] == "lineit.test" and hello["time"].endswith("+00:00")
    handled = next(line for line in lines if line["message"] == "a handled error")
    assert "ZeroDivisionError: division by zero" in handled["exc_info"]
    inside = next(line for line in lines if line["message"] == "inside the task")
    assert inside["task"] == "tests.a_task_that_logs_then_fails" and inside["task_id"]
    assert "sentry not loaded" in done.stdout  # no SENTRY_DSN: sentry-sdk is never imported


def test_text_logs_stay_the_default() -> None:
    done = run({})
    assert done.returncode == 0, done.stderr
    assert "hello operator" in done.stderr and not done.stderr.lstrip().startswith("{")


@contextmanager
def sentry_receiver() -> Iterator[tuple[int, list[bytes]]]:
    """An HTTP server that keeps every envelope posted to it (ungzipped)."""
    received: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            received.append(self.path.encode() + b"\n" + body)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], received
    finally:
        server.shutdown()
        server.server_close()


def test_sentry_gets_the_failed_task_and_the_error_log() -> None:
    with sentry_receiver() as (port, received):
        done = run({"SENTRY_DSN": f"http://publickey@127.0.0.1:{port}/42", "SENTRY_ENVIRONMENT": "test"})
    assert done.returncode == 0, done.stderr
    assert "sentry loaded" in done.stdout and "'celery'" in done.stdout and "'django'" in done.stdout
    events = [envelope for envelope in received if envelope.startswith(b"/api/42/envelope/")]
    text = b"\n".join(events).decode()
    assert "boom in a task" in text and '"type":"celery"' in text.replace(" ", "")  # the task's failure
    assert "a handled error" in text  # an ERROR log record
    assert '"environment":"test"' in text.replace(" ", "")
    assert '"release":"lineit-arena@' in text.replace(" ", "")
    # no frame's variables: a connection's parameters (a password inside a dict), a URL with one
    assert "Sup3rS3cret" not in text and "connection_parameters" not in text
