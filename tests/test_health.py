"""``/health/`` on the real PostgreSQL and Redis: 200 with the queues' lengths when both answer,
503 naming the broker when it is out of reach, for anyone, never cached; the workers alive on each
queue, from the heartbeats a real worker writes, "degraded" (still 200) when a queue has none."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from celery_processes import CeleryProcess, wait_for, worker
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from lineit_platform.celery import app
from lineit_platform.heartbeats import heartbeat_write, workers_by_queue
from lineit_platform.models import WorkerHeartbeat

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.django_db


def test_a_healthy_platform_answers_200_with_the_backlog_of_each_queue(client, broker) -> None:  # type: ignore[no-untyped-def]
    app.send_task("tournaments.tasks.ladder_tick")  # one message waiting on housekeeping
    app.send_task("tournaments.tasks.match_run_task", args=[1], queue="bulk", priority=9)
    response = client.get("/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and body["database"]["ok"] is True
    assert body["broker"]["queues"] == {"interactive": 0, "bulk": 1, "housekeeping": 1, "outbound": 0}
    assert "no-cache" in response["Cache-Control"]
    # No worker runs here: degraded, naming every queue, yet 200 (see lineit_platform/health.py).
    assert body["degraded"] is True and body["workers"]["missing"] == [
        "interactive",
        "bulk",
        "housekeeping",
        "outbound",
        "beat",
    ]
    assert client.get("/health/?workers=required").status_code == 503


def test_a_broker_out_of_reach_is_a_503_that_says_so(client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    response = client.get("/health/")
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False and body["database"]["ok"] is True
    # Anyone: what kind of error, not where (the line names the host and port).
    assert body["broker"] == {"ok": False, "error": "OperationalError"}
    settings.METRICS_TOKEN = "t" * 32
    told = client.get("/health/", headers={"Authorization": "Bearer " + "t" * 32}).json()
    assert "Connection refused" in told["broker"]["error"]  # the operator's monitor: the whole line


@pytest.mark.django_db(transaction=True)
def test_a_database_that_does_not_answer_is_a_503_that_names_no_host_or_port_to_anonymous_clients(
    client,
    settings,
    caplog,  # type: ignore[no-untyped-def]
) -> None:
    """Before, an anonymous client read "connection to server at "127.0.0.1", port 5432 failed"."""
    from redis_server import free_port

    settings.METRICS_TOKEN = "t" * 32
    port = str(free_port())  # nothing listens there
    saved = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = port
    try:
        anonymous = client.get("/health/")
        operator = client.get("/health/", headers={"Authorization": "Bearer " + "t" * 32})
    finally:
        connection.close()
        connection.settings_dict["PORT"] = saved
    assert anonymous.status_code == 503
    assert anonymous.json()["database"] == {"ok": False, "error": "OperationalError"}
    assert port not in anonymous.content.decode() and "127.0.0.1" not in anonymous.content.decode()
    assert port in operator.json()["database"]["error"]
    assert any(port in record.getMessage() for record in caplog.records)  # the operator's log has it


def test_only_get(client) -> None:  # type: ignore[no-untyped-def]
    assert client.post("/health/").status_code == 405


def test_a_worker_that_stopped_beating_long_ago_is_not_counted(db) -> None:  # type: ignore[no-untyped-def]
    heartbeat_write(name="bulk@gone", queues=["interactive", "bulk"], started_at=timezone.now())
    heartbeat_write(name="housekeeping@here", queues=["housekeeping"], started_at=timezone.now())
    assert workers_by_queue(["interactive", "bulk", "housekeeping"]) == {
        "interactive": ["bulk@gone"], "bulk": ["bulk@gone"], "housekeeping": ["housekeeping@here"]
    }  # fmt: skip
    missed = django_settings.WORKER_HEARTBEAT_SECONDS * django_settings.WORKER_HEARTBEAT_MISSED
    WorkerHeartbeat.objects.filter(name="bulk@gone").update(seen_at=timezone.now() - timedelta(seconds=missed + 1))
    assert workers_by_queue(["bulk", "housekeeping"]) == {"bulk": [], "housekeeping": ["housekeeping@here"]}


def worker_health(*arguments: str) -> subprocess.CompletedProcess[str]:
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    return subprocess.run(
        [sys.executable, "manage.py", "worker_health", *arguments],
        cwd=ROOT, env=os.environ | {"DATABASE_URL": url}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_real_worker_and_beat_beat_and_a_warm_shutdown_removes_the_worker(client, tmp_path: Path, broker) -> None:  # type: ignore[no-untyped-def]
    fast = {"WORKER_HEARTBEAT_SECONDS": "0.5"}
    given = worker(tmp_path / "worker.log", queues=("interactive", "bulk"), environment=fast)
    beat = CeleryProcess(["beat", "-l", "info", "-s", str(tmp_path / "beat-schedule")], tmp_path / "beat.log", fast)
    workers = WorkerHeartbeat.objects.exclude(name__startswith="beat@")
    try:
        wait_for(lambda: workers.exists(), "the worker's first heartbeat", timeout=90)
        (name,) = workers.values_list("name", flat=True)
        first = workers.get().seen_at
        wait_for(lambda: workers.get().seen_at > first, "a second heartbeat")
        wait_for(lambda: WorkerHeartbeat.objects.filter(name__startswith="beat@").exists(), "the beat's heartbeat")
        (beat_name,) = WorkerHeartbeat.objects.filter(name__startswith="beat@").values_list("name", flat=True)
        body = client.get("/health/").json()
        assert body["workers"]["queues"] == {"interactive": 1, "bulk": 1, "housekeeping": 0, "outbound": 0}  # counts
        assert body["workers"]["beat"] == 1
        assert body["degraded"] is True and body["workers"]["missing"] == ["housekeeping", "outbound"]
        client.force_login(get_user_model().objects.create(username="operator", is_staff=True))
        body = client.get("/health/").json()  # staff: which workers
        assert body["workers"]["queues"] == {"interactive": [name], "bulk": [name], "housekeeping": [], "outbound": []}
        assert body["workers"]["beat"] == [beat_name]
        client.logout()
        assert worker_health(beat_name).returncode == 0
        assert client.get("/health/").status_code == 200
        assert client.get("/health/?workers=required").status_code == 503
        alive = worker_health(name)
        assert (alive.returncode, alive.stdout.strip()) == (0, f"worker {name} is alive")
        assert worker_health("--queue", "bulk").returncode == 0
        missing = worker_health("--queue", "housekeeping")
        assert missing.returncode == 1 and "no recent heartbeat from a worker on housekeeping" in missing.stderr
        assert "Traceback" not in missing.stderr
    finally:
        given.stop()
        beat.stop()
    assert not workers.exists()  # a warm shutdown says goodbye
    assert worker_health(name).returncode == 1


@pytest.mark.slow
def test_heartbeats_work_on_the_embedded_default_too(tmp_path: Path) -> None:
    """SQLite and the filesystem broker (`make run`): no control channel to ping, yet the
    worker's heartbeat is seen."""
    environment = os.environ | {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "filesystem://",
        "VAR_DIR": str(tmp_path),
        "WORKER_HEARTBEAT_SECONDS": "0.5",
    }
    manage = [sys.executable, "manage.py"]
    migrated = subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=environment, capture_output=True, text=True)
    assert migrated.returncode == 0, migrated.stderr
    celery = str(Path(sys.executable).with_name("celery"))
    log = (tmp_path / "worker.log").open("wb")
    given = subprocess.Popen(
        [celery, "-A", "lineit_platform.celery", "worker", "-l", "info", "-c", "1", "-Q", "housekeeping",
         "-n", "embedded@%h", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip

    def check() -> subprocess.CompletedProcess[str]:
        command = [*manage, "worker_health", "--queue", "housekeeping"]
        return subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60)

    try:
        wait_for(lambda: check().returncode == 0, "the embedded worker's heartbeat", timeout=120)
    finally:
        os.killpg(given.pid, signal.SIGTERM)
        given.wait(60)
        log.close()
    assert check().returncode == 1  # its warm shutdown removed it


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_workers_send_task_events_for_flower(tmp_path: Path, broker) -> None:  # type: ignore[no-untyped-def]
    import threading

    seen: list[str] = []
    with app.connection_for_read() as connection:
        receiver = app.events.Receiver(connection, handlers={"*": lambda event: seen.append(event["type"])})
        listening = threading.Thread(target=lambda: receiver.capture(limit=None, timeout=None, wakeup=False))
        listening.daemon = True
        listening.start()
        given = worker(tmp_path / "worker.log", queues=("housekeeping",))
        try:
            wait_for(lambda: WorkerHeartbeat.objects.exists(), "the worker", timeout=90)
            app.send_task("tournaments.tasks.matches_sweep")
            wait_for(lambda: "task-succeeded" in seen, "the task's events", timeout=60)
        finally:
            receiver.should_stop = True
            given.stop()
    assert {"task-sent", "task-received", "task-started", "task-succeeded"} <= set(seen)
