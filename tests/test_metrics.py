"""``/metrics`` as Prometheus scrapes it: off without METRICS_TOKEN, 401 without the token, and
numbers that move as the platform works: a request counted by view and status, a match played
by the real task in the real sandbox counted as ended with its duration and its bot's failures,
the queued matches and the queues' messages as they change."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings as django_settings
from prometheus_client.parser import text_string_to_metric_families

from lineit_platform.celery import app
from lineit_platform.metrics import tallies_add
from tournaments.services.matches import match_schedule
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


@pytest.fixture
def broker():  # type: ignore[no-untyped-def]
    connection = redis.Redis.from_url(django_settings.CELERY_BROKER_URL)
    connection.flushdb()
    yield connection
    connection.flushdb()


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
