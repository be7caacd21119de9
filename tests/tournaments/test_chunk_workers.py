"""Chunked matches on real Celery workers (subprocesses) with the real Redis and PostgreSQL: two
worker processes play one match at once, a worker process killed mid-chunk costs that chunk's
games only, and a worker whose database connection is cut records its games all the same."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator

import pytest
import redis
from celery_processes import CeleryProcess, wait_for, worker
from django.conf import settings
from django.db import connection

from lineit.botkit.limits import Limits
from tournaments.models import Game, LiveGame, Match, MatchChunk, RatingEvent
from tournaments.services.matches.states import match_schedule
from tournaments.services.ratings_recompute import ratings_recompute

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

QUICK = Limits(move_seconds=0.05, bank_seconds=1, move_timeout_seconds=0.5, startup_seconds=5)
# The random bot, a little slower, so that a chunk is still being played when the test acts.
SLOW_RANDOM = b"""import random
import time

def act(observation):
    time.sleep(0.004)
    return random.Random(observation.get("turn", 0)).choice(observation["legal_actions"])
"""
ENVIRONMENT = {
    "MATCH_CHUNK_GAMES": "4",
    "MATCH_LEASE_SECONDS": "600",  # recoveries here must not wait for a lease
    "MATCH_TIME_LIMIT_SECONDS": "3600",
    "MATCH_SOFT_MARGIN_SECONDS": "10",
    "CELERY_VISIBILITY_TIMEOUT": "3720",
    "MATCH_RETRY_DELAY_SECONDS": "1",
}


@pytest.fixture
def start_worker(transactional_db, tmp_path) -> Iterator[Callable[..., CeleryProcess]]:  # type: ignore[no-untyped-def]
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    workers: list[CeleryProcess] = []

    def start(concurrency: int = 1) -> CeleryProcess:
        workers.append(worker(tmp_path / f"worker{len(workers)}.log", concurrency, ENVIRONMENT))
        return workers[-1]

    yield start
    for started in workers:
        started.stop(signal.SIGTERM)
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


def _finished(match: Match) -> Callable[[], bool]:
    return lambda: Match.objects.get(pk=match.pk).status not in Match.PENDING


def test_two_worker_processes_play_one_match_at_once(start_worker, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(code=SLOW_RANDOM), version_factory(code=SLOW_RANDOM)]
    match = match_schedule(versions=versions, games=32, ranked=True, seed=6, limits=QUICK)
    start_worker(concurrency=2)
    wait_for(_finished(match), "the match", timeout=240)
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("finished", 1)
    chunks = list(MatchChunk.objects.filter(match=match))
    assert len(chunks) == 8 and {chunk.attempts for chunk in chunks} == {1}
    assert len({chunk.worker for chunk in chunks}) == 2  # both processes played chunks of it
    assert Game.objects.filter(match=match).count() == 32
    assert RatingEvent.objects.filter(match=match).count() == 64
    assert ratings_recompute().mismatches == []


def test_a_worker_process_killed_mid_chunk_costs_only_that_chunk(start_worker, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(code=SLOW_RANDOM), version_factory(code=SLOW_RANDOM)]
    match = match_schedule(versions=versions, games=16, ranked=True, seed=9, limits=QUICK)
    start_worker()

    def second_chunk_under_way() -> bool:
        chunk = MatchChunk.objects.filter(match=match, first=4).first()
        return (
            chunk is not None
            and chunk.status == "running"
            and LiveGame.objects.filter(match=match, index__gte=4).exists()
        )

    wait_for(second_chunk_under_way, "the second chunk to be under way", timeout=120, tick=lambda: None)
    victim = MatchChunk.objects.get(match=match, first=4)
    played_before_kill = LiveGame.objects.filter(match=match, index__gte=4, index__lt=8).count()
    os.kill(int(victim.worker.rpartition(":")[2]), signal.SIGKILL)  # the pool process playing it
    wait_for(_finished(match), "the match", timeout=240)
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("finished", 1)  # the match was never started again
    chunks = {chunk.first: chunk for chunk in MatchChunk.objects.filter(match=match)}
    assert chunks[0].attempts == 1 and chunks[4].attempts == 2  # only the killed chunk again
    assert {chunks[first].attempts for first in (8, 12)} == {1}
    assert 1 <= played_before_kill < 4
    assert Game.objects.filter(match=match).count() == 16
    assert RatingEvent.objects.filter(match=match).count() == 32
    assert ratings_recompute().mismatches == []


def test_a_worker_whose_database_connection_is_cut_records_its_games(start_worker, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(code=SLOW_RANDOM), version_factory(code=SLOW_RANDOM)]
    match = match_schedule(versions=versions, games=8, ranked=True, seed=12, limits=QUICK)
    start_worker()
    wait_for(lambda: LiveGame.objects.filter(match=match).exists(), "the match to be under way", tick=lambda: None)
    with connection.cursor() as cursor:  # every other connection to this database: the worker's
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        (cut,) = cursor.fetchone()
    assert cut >= 1
    wait_for(_finished(match), "the match", timeout=240)
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("finished", 1)
    assert {chunk.attempts for chunk in MatchChunk.objects.filter(match=match)} == {1}  # nothing played again
    assert Game.objects.filter(match=match).count() == 8
    assert RatingEvent.objects.filter(match=match).count() == 16


def test_a_call_on_a_cut_connection_is_made_again_on_a_new_one(transactional_db) -> None:  # type: ignore[no-untyped-def]
    import psycopg

    from lineit_platform.workers import database_retried

    calls: list[int] = []

    def count_matches() -> int:
        calls.append(1)
        return Match.objects.count()

    connection.ensure_connection()
    mine = connection.connection.info.backend_pid
    dsn = connection.get_connection_params()
    with psycopg.connect(
        **{key: value for key, value in dsn.items() if key in ("dbname", "user", "host", "port")}, autocommit=True
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [mine])
    assert database_retried(count_matches) == 0
    assert len(calls) == 2  # the first on the cut connection, the second on a new one
    assert connection.connection.info.backend_pid != mine
