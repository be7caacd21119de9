"""A Redis outage under the API (lineit_platform/redis_cache.py): the response cache and the
throttle counters share one Redis, and when it stops the leaderboard, the match detail and every
write still answer as they would uncached; when it comes back, the cache works again.

The Redis here is a real redis-server of the test's own (tests/redis_server.py), killed and
started again on its port; nothing is mocked."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from api_helpers import client_for
from django.conf import settings
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from redis_server import RedisServer, free_port

from bots.models import BotVersion
from tournaments.models import Match

pytestmark = pytest.mark.django_db

BOT = b"class Bot:\n    def act(self, observation):\n        return observation['legal_actions'][0]\n"


def api_cache(url: str, **options: Any) -> dict[str, Any]:
    """The settings' "api" cache (same backend and timeouts), at ``url``."""
    timeouts = {
        "socket_connect_timeout": settings.API_CACHE_TIMEOUT_SECONDS,
        "socket_timeout": settings.API_CACHE_TIMEOUT_SECONDS,
    }
    cache = {"BACKEND": settings.REDIS_CACHE_BACKEND, "LOCATION": url, "OPTIONS": {**timeouts, **options}}
    return {**settings.CACHES, "api": cache}


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path).start()
    # PAUSE_SECONDS 0: the cache asks Redis again at once, so the test sees it come back.
    with override_settings(CACHES=api_cache(server.url, PAUSE_SECONDS=0)):
        yield server
    server.stop()


def upload(client: Any, bot_id: int, content: bytes = BOT) -> Any:
    return client.post(
        f"/api/bots/{bot_id}/versions/", {"file": SimpleUploadedFile("bot.py", content)}, format="multipart"
    )


def test_while_redis_is_down_reads_and_writes_answer_as_uncached(  # type: ignore[no-untyped-def]
    private_redis, alice, bob, version_factory, play_match, bot_factory
) -> None:
    mine, theirs = version_factory(bot__owner=alice), version_factory(bot__owner=bob)
    match = play_match([mine, theirs], ranked=True)
    anonymous, as_alice = client_for(None), client_for(alice)
    board = anonymous.get("/api/leaderboard/")
    detail = anonymous.get(f"/api/matches/{match.pk}/")
    assert board.status_code == detail.status_code == 200
    assert caches["api"]._cache.get_client().dbsize() > 0  # both were cached in this Redis

    private_redis.stop()

    assert anonymous.get("/api/leaderboard/").content == board.content
    assert anonymous.get(f"/api/matches/{match.pk}/").content == detail.content
    assert anonymous.get("/api/matches/").status_code == 200
    bot = bot_factory(owner=alice)
    assert as_alice.post("/api/bots/", {"name": "outage-bot"}).status_code == 201
    uploaded = upload(as_alice, bot.pk)
    assert uploaded.status_code == 201, uploaded.content
    assert BotVersion.objects.get(pk=uploaded.json()["id"]).status == "validating"
    requested = as_alice.post("/api/matches/", {"version": mine.pk, "opponents": [theirs.pk], "games": 2})
    assert requested.status_code == 201, requested.content
    assert Match.objects.filter(pk=requested.json()["id"], status="queued").exists()
    alice.set_password("correct horse battery")
    alice.save()
    token = anonymous.post("/api/auth/token/", {"username": "alice", "password": "correct horse battery"})
    assert token.status_code == 200, token.content

    private_redis.start()  # back on its port, empty (no persistence): the cache fills again

    assert anonymous.get("/api/leaderboard/").status_code == 200
    assert caches["api"]._cache.get_client().dbsize() > 0


def test_an_api_cache_where_nothing_listens_serves_every_request(alice, version_factory, play_match) -> None:  # type: ignore[no-untyped-def]
    mine = version_factory(bot__owner=alice)
    match = play_match([mine, version_factory()], ranked=True)
    with override_settings(CACHES=api_cache(f"redis://127.0.0.1:{free_port()}/0")):
        anonymous = client_for(None)
        for _ in range(2):
            assert anonymous.get("/api/leaderboard/").status_code == 200
            assert anonymous.get(f"/api/matches/{match.pk}/").status_code == 200
        requested = client_for(alice).post("/api/matches/", {"version": mine.pk, "opponents": [mine.pk], "games": 2})
        assert requested.status_code == 201, requested.content


def test_the_cache_api_during_an_outage_misses_and_skips(private_redis, caplog) -> None:  # type: ignore[no-untyped-def]
    cache = caches["api"]
    cache.set("kept", 1)
    assert cache.get("kept") == 1
    private_redis.stop()
    with caplog.at_level(logging.WARNING, logger="lineit_platform.redis_cache"):
        assert cache.get("kept") is None and cache.get("kept", "default") == "default"
        assert cache.get_many(["kept", "other"]) == {}
        assert cache.has_key("kept") is False
        assert cache.add("new", 1) is False
        cache.set("new", 1)  # skipped, no error
        assert cache.set_many({"a": 1, "b": 2}) == ["a", "b"]  # Django's "not stored" keys
        assert cache.get_or_set("window", 42) == 42
        assert cache.touch("kept") is False and cache.delete("kept") is False
        cache.delete_many(["a", "b"])
        with pytest.raises(ValueError, match="not found"):
            cache.incr("kept")
        with pytest.raises(ValueError, match="not found"):
            cache.decr("kept")
    warnings = [record for record in caplog.records if record.name == "lineit_platform.redis_cache"]
    assert warnings and "unavailable" in warnings[0].getMessage()
    assert len(warnings) == 1  # rate-limited: one warning for the whole burst
    private_redis.start()
    cache.set("back", 2)
    assert cache.get("back") == 2


def test_after_a_failure_the_cache_pauses_before_asking_redis_again(tmp_path: Path) -> None:
    server = RedisServer(tmp_path).start()
    try:
        with override_settings(CACHES=api_cache(server.url, PAUSE_SECONDS=3600)):
            cache = caches["api"]
            cache.set("before", 1)
            server.stop()
            assert cache.get("before") is None  # the failure opens the pause
            server.start()
            redis.Redis.from_url(server.url).set(cache.make_key("during"), b"0")
            assert cache.get("during") is None  # not asked: still within the pause
            assert cache.add("during", 1) is False
    finally:
        server.stop()
