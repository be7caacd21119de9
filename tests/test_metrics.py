"""``/metrics`` as Prometheus scrapes it: off without METRICS_TOKEN, 401 without the token, and
numbers that move as the platform works: a request counted by view and status, a match played
by the real task in the real sandbox counted as ended with its duration and its bot's failures,
the queued matches and the queues' messages as they change."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from celery_processes import wait_for
from django.conf import settings as django_settings
from django.db import connection
from prometheus_client.parser import text_string_to_metric_families
from redis_server import free_port

from lineit_platform.celery import app
from lineit_platform.metrics import record_match_ended, tallies_add
from lineit_platform.models import MetricTalliedMatch
from tournaments.services.matches.states import match_schedule
from tournaments.tasks import match_run_task

pytestmark = pytest.mark.django_db

TOKEN = "a-metrics-token-for-the-tests"
FAILING_BOT = b"class Bot:\n    def act(self, observation):\n        raise RuntimeError('no idea')\n"


@pytest.fixture
def scrape(client, settings):  # type: ignore[no-untyped-def]
    settings.METRICS_TOKEN = TOKEN

    def read() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
        return {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.content.decode())
            for sample in family.samples
        }

    return read


def test_metrics_are_off_without_a_token_and_refused_without_the_right_one(client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404
    settings.METRICS_TOKEN = TOKEN
    refused = client.get("/metrics")
    assert refused.status_code == 401 and refused["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Basic {TOKEN}").status_code == 401
    assert client.post("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 405


def test_a_request_is_counted_by_view_and_status(client, scrape, broker) -> None:  # type: ignore[no-untyped-def]
    key = (
        "django_http_responses_total_by_status_view_method_total",
        (("method", "GET"), ("status", "200"), ("view", "health")),
    )
    before = scrape().get(key, 0.0)
    client.get("/health/")
    client.get("/health/")
    assert scrape()[key] == before + 2


def test_a_match_moves_the_numbers(scrape, broker, version_factory) -> None:  # type: ignore[no-untyped-def]
    start = scrape()
    assert start[("lineit_matches", (("status", "queued"),))] == 0
    match = match_schedule(versions=[version_factory(), version_factory(code=FAILING_BOT)], games=2, seed=3)
    app.send_task("tournaments.tasks.match_run_task", args=[match.pk], queue="bulk")
    queued = scrape()
    assert queued[("lineit_matches", (("status", "queued"),))] == 1
    assert queued[("lineit_queue_messages", (("queue", "bulk"),))] == 1

    match_run_task.apply(args=[match.pk])  # the real task, its signals and the sandbox, here
    match.refresh_from_db()
    assert match.status == "finished" and match.failure_count == 2  # the failing bot, once a game

    played = scrape()
    assert played[("lineit_matches", (("status", "queued"),))] == 0
    assert played[("lineit_matches_ended_total", (("status", "finished"),))] == 1
    assert played[("lineit_match_duration_seconds_count", ())] == 1
    assert played[("lineit_match_duration_seconds_bucket", (("le", "+Inf"),))] == 1
    assert played[("lineit_match_duration_seconds_sum", ())] > 0
    assert played[("lineit_game_failures_total", (("kind", "exception"),))] == 2

    match_run_task.apply(args=[match.pk])  # delivered twice: the match is over, nothing is counted again
    assert scrape()[("lineit_matches_ended_total", (("status", "finished"),))] == 1


def test_tallies_add_up_across_calls_in_one_statement_each(scrape) -> None:  # type: ignore[no-untyped-def]
    tallies_add({("lineit_game_failures", "timeout"): 2.0, ("lineit_matches_ended", "failed"): 1.0})
    tallies_add({("lineit_game_failures", "timeout"): 3.0})
    read = scrape()
    assert read[("lineit_game_failures_total", (("kind", "timeout"),))] == 5
    assert read[("lineit_matches_ended_total", (("status", "failed"),))] == 1


def test_gunicorn_sums_its_processes_counts_and_starts_from_zero(tmp_path: Path) -> None:
    folder = tmp_path / "prometheus"
    folder.mkdir()
    (folder / "counter_999999.db").write_bytes(b"a previous run's counts")  # emptied at start
    database = connection.settings_dict
    variables = os.environ | {
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
        "PROMETHEUS_MULTIPROC_DIR": str(folder),
        "METRICS_TOKEN": TOKEN,
    }
    port = free_port()
    log = (tmp_path / "gunicorn.log").open("wb")
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "lineit_platform.wsgi", "-c",
         "python:lineit_platform.metrics_gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "3"],
        cwd=django_settings.BASE_DIR, env=variables, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _answers(f"{base}/health/"), "gunicorn", timeout=60)
        before = _health_count(base)
        for _ in range(30):
            assert _answers(f"{base}/health/")
        after = _health_count(base)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)
        log.close()
    assert before >= 1 and after == before + 30  # every request, whichever of the 3 processes answered it
    assert not (folder / "counter_999999.db").exists()


def _health_count(base: str) -> float:
    request = urllib.request.Request(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "django_http_responses_total_by_status_view_method_total" and sample.labels == {
                "method": "GET", "status": "200", "view": "health"
            }:  # fmt: skip
                return sample.value
    raise AssertionError("no count of GET /health/ in /metrics")


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status == 200
    except OSError:
        return False


def test_a_match_the_sweeper_fails_is_counted_as_failed(scrape, broker, version_factory) -> None:  # type: ignore[no-untyped-def]
    from django.utils import timezone

    from tournaments.models import Match

    match = match_schedule(versions=[version_factory(), version_factory()], games=2, seed=4)
    # its worker died on its last attempt: running, past its deadline, no attempt left
    Match.objects.filter(pk=match.pk).update(
        status="running", attempts=3, max_attempts=3, deadline=timezone.now(), started_at=timezone.now()
    )
    before = scrape().get(("lineit_matches_ended_total", (("status", "failed"),)), 0.0)
    assert app.tasks["tournaments.tasks.matches_sweep"].apply().get()["failed"] == 1
    assert scrape()[("lineit_matches_ended_total", (("status", "failed"),))] == before + 1
    record_match_ended(match.pk)  # its worker was only slow: its task ends, finds it failed
    assert scrape()[("lineit_matches_ended_total", (("status", "failed"),))] == before + 1


def test_a_match_is_tallied_once_whatever_the_number_of_tasks_that_see_it_end(scrape, version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=2, seed=5)
    match_run_task.apply(args=[match.pk])
    counted = scrape()[("lineit_matches_ended_total", (("status", "finished"),))]
    for _ in range(3):  # the other workers of a chunked match, each finishing its part after the end
        record_match_ended(match.pk)
    assert scrape()[("lineit_matches_ended_total", (("status", "finished"),))] == counted
    assert MetricTalliedMatch.objects.filter(match_id=match.pk).count() == 1


def test_a_cancelled_match_is_counted_as_cancelled(scrape, version_factory, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    from tournaments.services.matches.states import match_cancel

    match = match_schedule(versions=[version_factory(), version_factory()], games=2, seed=6)
    before = scrape().get(("lineit_matches_ended_total", (("status", "cancelled"),)), 0.0)
    with django_capture_on_commit_callbacks(execute=True):
        match_cancel(match=match)  # by its requester, on a page or through the API: no task sees it end
    assert scrape()[("lineit_matches_ended_total", (("status", "cancelled"),))] == before + 1


def test_the_multiprocess_folder_is_not_a_link_another_user_planted(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from lineit.botkit.safe_paths import UnsafePath
    from lineit_platform.metrics_gunicorn import on_starting

    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "kept").write_text("theirs")
    planted = tmp_path / "shared"
    planted.mkdir()
    planted.chmod(0o1777)  # /tmp
    link = planted / "lineit-prometheus"
    link.symlink_to(theirs, target_is_directory=True)
    os.lchown(link, 65534, 65534)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(link))
    with pytest.raises(UnsafePath):  # gunicorn does not start, rather than count into their folder
        on_starting(None)
    assert [path.name for path in theirs.iterdir()] == ["kept"]
    link.unlink()
    on_starting(None)  # made anew, ours and private
    assert link.is_dir() and not link.is_symlink() and (link.stat().st_mode & 0o777) == 0o700
