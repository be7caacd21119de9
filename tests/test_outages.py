"""What an operator's outages do to a real web process (gunicorn, tests/web_process.py) on the test
database: Redis down under both the cache and the Celery broker, and PostgreSQL restarted under
kept connections. The site keeps answering, and what could not be sent is caught up later by the
sweeper and a real Celery worker."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from celery_processes import CeleryProcess, wait_for, worker
from django.conf import settings
from django.db import connection
from django.utils import timezone
from redis_server import free_port
from rest_framework.authtoken.models import Token
from web_process import WebProcess

from bots.models import BotVersion
from tournaments.models import Match
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule
from tournaments.services.matches.sweeper import matches_sweep

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BOT = b"def act(observation):\n    return observation['legal_actions'][-1]\n"


@pytest.fixture
def finished_match(alice: Any, bob: Any, version_factory: Any) -> Match:
    mine, theirs = version_factory(bot__owner=alice), version_factory(bot__owner=bob)
    match = match_execute(
        match_id=match_schedule(versions=[mine, theirs], games=2, ranked=True, seed=3).pk, worker="test"
    )
    assert match is not None and match.status == "finished"
    return match


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Any]:
    started: list[WebProcess] = []

    def start(**environment: str) -> WebProcess:
        started.append(WebProcess(tmp_path / f"web-{len(started)}.log", environment))
        return started[-1]

    yield start
    for process in started:
        process.stop()


@pytest.fixture
def broker_worker(tmp_path: Path) -> Iterator[Any]:
    """A real worker on the tests' own broker, started on demand, its queue emptied around it."""
    started: list[CeleryProcess] = []
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()

    def start() -> CeleryProcess:
        started.append(worker(tmp_path / "worker.log"))
        return started[-1]

    yield start
    for process in started:
        process.stop()
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


def test_with_redis_down_the_site_answers_and_the_sweeper_catches_up_afterwards(  # type: ignore[no-untyped-def]
    web, broker_worker, finished_match, alice, bot_factory
) -> None:
    dead = free_port()  # nothing listens: Redis is down for the broker and the cache alike
    site = web(
        CELERY_BROKER_URL=f"redis://127.0.0.1:{dead}/0",
        API_CACHE_URL=f"redis://127.0.0.1:{dead}/1",
        DATABASE_CONN_MAX_AGE="60",
    )
    token = Token.objects.create(user=alice).key
    bot = bot_factory(owner=alice, name="outage-bot")
    mine = finished_match.entrants.get(index=0).version

    for page in [
        "/api/leaderboard/",
        f"/api/matches/{finished_match.pk}/",
        "/api/matches/",
        "/",
        f"/matches/{finished_match.pk}/",
    ]:
        for _ in range(2):  # the second read would be the cached one
            status, body = site.request("GET", page)
            assert status == 200, (page, body[:300], site.log_text())
    status, body = site.request("POST", f"/api/bots/{bot.pk}/versions/", files={"file": ("bot.py", BOT)}, token=token)
    assert status == 201, (body, site.log_text())
    version = BotVersion.objects.get(pk=json.loads(body)["id"])
    status, body = site.request(
        "POST", "/api/matches/", json_body={"version": mine.pk, "opponents": [mine.pk], "games": 2}, token=token
    )
    assert status == 201, (body, site.log_text())
    requested = Match.objects.get(pk=json.loads(body)["id"])
    status, body = site.request("POST", "/api/auth/token/rotate/", token=token)
    assert status in (200, 201), (body, site.log_text())
    assert version.status == "validating" and version.validation_sent_at is not None
    assert requested.status == "queued"
    assert "could not send the validation of version" in site.log_text()

    # Redis is back (the tests' own broker); the beat's sweeper sends what was lost.
    broker_worker()
    later = timezone.now() + timedelta(
        seconds=max(settings.BOT_VALIDATION_RESEND_AFTER_SECONDS, settings.MATCH_RESEND_AFTER_SECONDS) + 1
    )
    counts = matches_sweep(now=later)
    assert counts["validations_resent"] == 1 and counts["resent"] == 1
    wait_for(lambda: BotVersion.objects.get(pk=version.pk).status == "active", "the resent validation")
    wait_for(lambda: Match.objects.get(pk=requested.pk).status == "finished", "the resent match")


def _terminate_other_connections() -> int:
    """What a PostgreSQL restart does to the web process's kept connection."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        (terminated,) = cursor.fetchone()
    return int(terminated)


def test_a_database_restart_under_kept_connections_fails_no_request(web, finished_match) -> None:  # type: ignore[no-untyped-def]
    site = web(DATABASE_CONN_MAX_AGE="60", API_RESPONSE_CACHE_SECONDS="0")  # every request reads the database
    pages = ["/api/leaderboard/", "/api/matches/", f"/api/matches/{finished_match.pk}/", "/", "/api/bots/"]
    for page in pages:
        assert site.request("GET", page)[0] == 200
    for page in pages:  # every kind of read, each the first on a connection the server dropped
        assert _terminate_other_connections() >= 1
        status, body = site.request("GET", page)
        assert status == 200, (page, body[:300], site.log_text())
