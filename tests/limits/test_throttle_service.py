"""The throttle service: counts up to the limit, then a clear refusal; counters shared by every
process through real Redis, atomically; and the settings that make sure they are shared."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings
from django.core.cache.backends.dummy import DummyCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from django.test import override_settings

from lineit_platform import throttles
from lineit_platform.checks import check_platform_settings
from lineit_platform.throttles import RateLimited, hit, parse_rate

ROOT = Path(__file__).resolve().parents[2]
# The test run's own Redis (its broker's database: lineit_platform/testing.py, or the environment).
REDIS_URL = settings.CELERY_BROKER_URL
assert REDIS_URL.startswith("redis://"), "the tests run on a real Redis"


def redis_client() -> RedisCache:
    """A cache client of its own, with its own connection pool: what one more web process has."""
    return RedisCache(REDIS_URL, {})


def fresh_ident() -> str:
    return f"test-{uuid.uuid4().hex}"  # a counter no other test (nor run) has touched


@pytest.fixture
def rate(monkeypatch: pytest.MonkeyPatch) -> Any:
    def set_rate(scope: str, value: str) -> None:
        monkeypatch.setitem(settings.THROTTLE_RATES, scope, value)

    return set_rate


def test_the_limit_is_counted_then_refused_with_when_to_come_back(rate: Any) -> None:
    rate("uploads", "3/hour")
    cache = LocMemCache(f"test-{uuid.uuid4().hex}", {})
    ident = fresh_ident()
    assert [hit("uploads", ident, cache=cache).count for _ in range(3)] == [1, 2, 3]
    with pytest.raises(RateLimited) as refused:
        hit("uploads", ident, cache=cache)
    assert refused.value.code == "throttled"
    assert 0 < refused.value.retry_after <= 3600
    assert refused.value.message.startswith("Too many uploads: at most 3 per hour. Try again in ")
    assert hit("uploads", fresh_ident(), cache=cache).count == 1  # someone else is not affected


def test_two_processes_share_the_count_through_redis(rate: Any) -> None:
    # The issue: each gunicorn worker counted on its own, 53 of 80 wrong passwords got through a
    # limit of 20. Two clients with their own connections, as two worker processes have.
    rate("tokens", "20/min")
    first, second = redis_client(), redis_client()
    ident = fresh_ident()
    allowed = 0
    for attempt in range(80):
        try:
            hit("tokens", ident, cache=first if attempt % 2 else second)
            allowed += 1
        except RateLimited:
            pass
    assert allowed == 20


def test_simultaneous_requests_cannot_both_take_the_last_place(rate: Any) -> None:
    # Eight "processes" at once, 10 tries each, a limit of 25: exactly 25 pass (one atomic INCR
    # per request; a read-then-write counter lets more through).
    rate("uploads", "25/hour")
    ident = fresh_ident()
    clients = [redis_client() for _ in range(8)]
    start = threading.Barrier(len(clients))
    allowed: list[int] = []

    def hammer(cache: RedisCache) -> None:
        start.wait()
        for _ in range(10):
            try:
                hit("uploads", ident, cache=cache)
                allowed.append(1)
            except RateLimited:
                pass

    threads = [threading.Thread(target=hammer, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(allowed) == 25


def test_a_cache_that_cannot_count_lets_requests_through(rate: Any) -> None:
    # A throttle never makes a write fail: a cache that answers nothing counts nothing.
    rate("uploads", "1/hour")
    cache = DummyCache("dummy", {})
    for _ in range(5):
        assert hit("uploads", fresh_ident(), cache=cache).count == 1


@pytest.mark.parametrize("text", ["0/min", "ten/hour", "5/fortnight", "5", "-1/s", "²/hour", "٣/min"])
def test_a_rate_must_be_readable(text: str) -> None:
    with pytest.raises(ValueError, match="20/hour"):
        parse_rate(text)


def test_a_per_process_throttle_cache_is_warned_about_on_postgresql() -> None:
    assert settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    per_process = {
        "default": settings.CACHES["default"],
        "api": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    }
    shared = {
        "default": settings.CACHES["default"],
        "api": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL},
    }
    with override_settings(CACHES=per_process):
        assert "lineit.W003" in {problem.id for problem in check_platform_settings()}
        assert not throttles.counters_shared()
    with override_settings(CACHES=shared):
        assert "lineit.W003" not in {problem.id for problem in check_platform_settings()}
        assert throttles.counters_shared()


def _compose_environment() -> dict[str, str]:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return {key: str(value) for key, value in compose["x-app"]["environment"].items()}


def test_docker_compose_shares_the_throttle_counters_in_redis() -> None:
    environment = _compose_environment()
    assert environment["API_CACHE_URL"].startswith("redis://")
    assert environment["API_CACHE_URL"] != environment["CELERY_BROKER_URL"]  # its own database
    web = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]["command"]
    assert "--workers 3" in web and "--limit-request-line" in web


def _check_output(**environment: str) -> str:
    env = {key: value for key, value in os.environ.items() if key != "API_CACHE_URL"} | environment
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout + result.stderr


def test_manage_py_check_says_when_processes_would_count_alone() -> None:
    # Production-like (PostgreSQL) without a shared cache: a warning; with docker-compose's
    # setting (here pointing at the test Redis): none.
    database = os.environ["DATABASE_URL"]
    assert "lineit.W003" in _check_output(DATABASE_URL=database)
    assert "lineit.W003" not in _check_output(DATABASE_URL=database, API_CACHE_URL=REDIS_URL)
