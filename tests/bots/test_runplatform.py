"""`manage.py runplatform` says "started" only once the web server listens, and a process that
cannot start (a busy port) or that ends on its own stops the platform with a non-zero exit and a
one-line reason."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from bots.management.commands.runplatform import listen_address, stop_all, wait_until_listening, watch

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another server is listening on."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield int(server.getsockname()[1])


def test_a_busy_port_stops_runplatform_at_once_with_a_one_line_reason(busy_port: int, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "filesystem://",
        "VAR_DIR": str(tmp_path),
    }
    command = [sys.executable, "manage.py", "runplatform", "--bind", f"127.0.0.1:{busy_port}", "--concurrency", "1"]

    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)

    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        f"CommandError: cannot listen on 127.0.0.1:{busy_port}: Address already in use "
        "(another server? choose another --bind)"
    ]
    assert "started" not in done.stdout
    assert not (tmp_path / "db.sqlite3").exists()  # refused before migrating anything


def python(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", code])


def test_a_process_that_exits_while_starting_is_named_with_its_status() -> None:
    processes = {"web": python("import sys; sys.exit(3)"), "worker": python("import time; time.sleep(60)")}
    try:
        with pytest.raises(CommandError) as refused:
            # Nothing will listen on this port: only the exit can end the wait.
            address = listen_address(f"127.0.0.1:{free_port()}")
            wait_until_listening(processes, address, "here", stopping=lambda: False, seconds=60)
    finally:
        stop_all(processes)
    assert (
        str(refused.value)
        == "the web process exited with status 3 (its output is above) while the platform was starting"
    )
    assert processes["worker"].poll() is not None  # the others are stopped too


def test_the_wait_ends_when_the_web_server_listens(busy_port: int) -> None:
    processes = {"web": python("import time; time.sleep(60)")}
    try:
        wait_until_listening(processes, listen_address(f"127.0.0.1:{busy_port}"), "here", stopping=lambda: False)
    finally:
        stop_all(processes)


def test_a_process_that_ends_later_is_reported_by_the_watch() -> None:
    processes = {"web": python("import time; time.sleep(60)"), "beat": python("import time; time.sleep(0.5); exit(2)")}
    try:
        assert watch(processes, stopping=lambda: False) == "the beat process exited with status 2 (its output is above)"
    finally:
        stop_all(processes)
    assert watch(processes, stopping=lambda: True) is None


@pytest.mark.parametrize(
    "bind", ["127.0.0.1:0", "127.0.0.1:http", "127.0.0.1:70000", "127.0.0.1:²", "no-such-host.invalid:80"]
)
def test_a_bind_gunicorn_could_not_use_is_refused(bind: str) -> None:
    with pytest.raises(CommandError, match=r"^--bind "):
        listen_address(bind)


def test_the_bind_forms_gunicorn_takes() -> None:
    assert listen_address("127.0.0.1:8001") == (socket.AF_INET, ("127.0.0.1", 8001))
    assert listen_address("[::1]:8002")[1][:2] == ("::1", 8002)  # type: ignore[index]
    assert listen_address("127.0.0.1") == (socket.AF_INET, ("127.0.0.1", 8000))
    assert listen_address("unix:/tmp/lineit.sock") == (socket.AF_UNIX, "/tmp/lineit.sock")
    assert listen_address("fd://3") is None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_platform(tmp_path: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "filesystem://",
        "VAR_DIR": str(tmp_path / "var"),
        **environment,
    }
    command = [sys.executable, "manage.py", "runplatform", "--bind", f"127.0.0.1:{free_port()}", "--concurrency", "1"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("environment", "reason"),
    [
        ({"CELERY_BROKER_URL": "redis://127.0.0.1:1/0"}, "cannot reach the broker (CELERY_BROKER_URL): "),
        (
            {"DATABASE_URL": "postgres://postgres@127.0.0.1:1/lineit", "DEBUG": "true"},
            "cannot reach the database (DATABASE_URL): ",
        ),
    ],
)
def test_a_broker_or_database_out_of_reach_stops_runplatform_before_anything_starts(
    tmp_path: Path, environment: dict[str, str], reason: str
) -> None:
    """An unreachable broker used to start the platform anyway (web up, "started", matches never
    played, the worker retrying for ever); an unreachable database ended in a traceback."""
    done = run_platform(tmp_path, **environment)

    assert done.returncode == 1, done.stdout + done.stderr
    last = done.stderr.strip().splitlines()[-1]  # after the system check's warnings, if any
    assert last.startswith(f"CommandError: {reason}") and "Traceback" not in done.stderr, done.stderr
    assert "Connection refused" in last and "started" not in done.stdout


def test_a_var_dir_that_cannot_be_made_names_the_variable(tmp_path: Path) -> None:
    occupied = tmp_path / "occupied"
    occupied.write_text("a file where VAR_DIR's folder should be")

    done = run_platform(tmp_path, VAR_DIR=str(occupied / "var"))

    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()  # one line naming the variable (manage.py)
    assert line.startswith("manage.py: bad configuration: VAR_DIR: cannot make the folder "), line
    assert "Not a directory" in line
