"""``/health/`` on the real PostgreSQL and Redis: 200 with the queues' lengths when both answer,
503 naming the broker when it is out of reach, for anyone, never cached."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings as django_settings

from lineit_platform.celery import app

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker():  # type: ignore[no-untyped-def]
    connection = redis.Redis.from_url(django_settings.CELERY_BROKER_URL)
    connection.flushdb()
    yield connection
    connection.flushdb()


def test_a_healthy_platform_answers_200_with_the_backlog_of_each_queue(client, broker) -> None:  # type: ignore[no-untyped-def]
    app.send_task("tournaments.tasks.ladder_tick")  # one message waiting on housekeeping
    app.send_task("tournaments.tasks.match_run_task", args=[1], queue="bulk", priority=9)
    response = client.get("/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and body["database"]["ok"] is True
    assert body["broker"]["queues"] == {"interactive": 0, "bulk": 1, "housekeeping": 1}
    assert "no-cache" in response["Cache-Control"]


def test_a_broker_out_of_reach_is_a_503_that_says_so(client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    response = client.get("/health/")
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False and body["database"]["ok"] is True
    assert body["broker"]["ok"] is False and "Connection refused" in body["broker"]["error"]


def test_only_get(client) -> None:  # type: ignore[no-untyped-def]
    assert client.post("/health/").status_code == 405
