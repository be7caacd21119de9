"""A real web process for the tests of what only a server shows (outages, kept connections):
gunicorn serving the platform on the test database, with the environment the test gives it, and a
small HTTP client for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection
from redis_server import free_port

GUNICORN = Path(sys.executable).with_name("gunicorn")


class WebProcess:
    """``gunicorn lineit_platform.wsgi``: one worker, one thread, so every request reuses the
    same database connection when connections are kept."""

    def __init__(self, log: Path, environment: dict[str, str] | None = None) -> None:
        database = connection.settings_dict
        variables = os.environ | {
            "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
            "MEDIA_ROOT": str(settings.MEDIA_ROOT),
            "LOG_LEVEL": "WARNING",
        }
        variables |= environment or {}
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log
        self.log = log.open("ab")
        self.process = subprocess.Popen(
            [str(GUNICORN), "lineit_platform.wsgi", "--bind", f"127.0.0.1:{self.port}", "--workers", "1"],
            cwd=settings.BASE_DIR,
            env=variables,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        give_up = time.monotonic() + 60
        while time.monotonic() < give_up:
            assert self.process.poll() is None, self.log_text()
            try:
                self.request("GET", "/api/")
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError("gunicorn did not start:\n" + self.log_text())

    def log_text(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")[-4000:]

    def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        files: dict[str, tuple[str, bytes]] | None = None,
        token: str | None = None,
    ) -> tuple[int, bytes]:
        headers = {"Accept": "application/json"}
        data = None
        if token is not None:
            headers["Authorization"] = f"Token {token}"
        if json_body is not None:
            data, headers["Content-Type"] = json.dumps(json_body).encode(), "application/json"
        if files:
            boundary = uuid.uuid4().hex
            parts = [
                f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
                f"Content-Type: application/octet-stream\r\n\r\n".encode()
                + content
                + b"\r\n"
                for field, (name, content) in files.items()
            ]
            data = b"".join(parts) + f"--{boundary}--\r\n".encode()
            headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
        call = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(call, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.log.close()
