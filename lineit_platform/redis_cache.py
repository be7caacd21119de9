"""Django's Redis cache, made to survive a Redis outage: every Redis cache in settings uses it.

A cache holds nothing that must be there. While Redis cannot be reached (stopped, restarting,
out of memory, a network partition), a read is a miss and a write, an increment or a delete is
skipped, so a cached page is computed afresh and a write never fails because of its cache. Rate
limits counted in the cache then count nothing (lineit_platform/throttles.py decides what that
means for each limit). Each failure is logged as a warning, at most once per pause per process.

An outage must cost milliseconds, not seconds: connections have short connect and read timeouts
(``API_CACHE_TIMEOUT_SECONDS``), and after a failure this cache does not ask Redis again for
``PAUSE_SECONDS`` (an OPTIONS key, 5 by default; 0 asks every time): it answers at once, as
during the outage. The first operation after the pause tries Redis again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_PAUSE_SECONDS = 5.0
_warned_at: dict[str, float] = {}
_warned_lock = threading.Lock()


class OutageTolerantRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` whose Redis failures are misses and
    skipped writes. OPTIONS as for Django's (passed to redis-py's pool), plus PAUSE_SECONDS."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS") or {})
        self.pause_seconds = float(options.pop("PAUSE_SECONDS", DEFAULT_PAUSE_SECONDS))
        super().__init__(server, {**params, "OPTIONS": options})
        self._down_until = 0.0

    def _guarded(self, operation: str, call: Callable[[], T], fallback: T) -> T:
        if self._down_until and time.monotonic() < self._down_until:
            return fallback
        try:
            result = call()
        except RedisError as error:
            self._down_until = time.monotonic() + self.pause_seconds
            self._warn(operation, error)
            return fallback
        self._down_until = 0.0
        return result

    def _warn(self, operation: str, error: RedisError) -> None:
        where = ",".join(self._servers)
        now = time.monotonic()
        with _warned_lock:
            if now - _warned_at.get(where, -1e9) < max(self.pause_seconds, 1.0):
                return
            _warned_at[where] = now
        logger.warning(
            "cache at %s unavailable (%s on %s: %s); serving without it, asking again in %.0f s",
            where,
            type(error).__name__,
            operation,
            error,
            self.pause_seconds,
        )

    # Reads: a miss.
    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._guarded("get", lambda: RedisCache.get(self, key, default, version), default)

    def get_many(self, keys: Iterable[Any], version: int | None = None) -> dict[Any, Any]:
        keys = list(keys)
        return self._guarded("get_many", lambda: RedisCache.get_many(self, keys, version), {})

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self._guarded("has_key", lambda: RedisCache.has_key(self, key, version), False)

    # Writes: skipped, reported as not done where Django's API reports it.
    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return self._guarded("add", lambda: RedisCache.add(self, key, value, timeout, version), False)

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        self._guarded("set", lambda: RedisCache.set(self, key, value, timeout, version), None)

    def set_many(self, data: dict[Any, Any], timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> list[Any]:
        return self._guarded("set_many", lambda: RedisCache.set_many(self, data, timeout, version), list(data))

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return self._guarded("touch", lambda: RedisCache.touch(self, key, timeout, version), False)

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._guarded("delete", lambda: RedisCache.delete(self, key, version), False)

    def delete_many(self, keys: Iterable[Any], version: int | None = None) -> None:
        keys = list(keys)
        self._guarded("delete_many", lambda: RedisCache.delete_many(self, keys, version), None)

    def clear(self) -> bool:
        return self._guarded("clear", lambda: RedisCache.clear(self), False)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        """As Django's: ValueError when the key is missing, and during an outage every key is."""
        missing: Any = object()
        result = self._guarded("incr", lambda: RedisCache.incr(self, key, delta, version), missing)
        if result is missing:
            raise ValueError(f"Key '{key}' not found (the cache is unavailable).")
        return int(result)
