"""Cached responses for the busiest reads, in the cache named "api" (settings: API_CACHE_URL).

Two kinds of data are safe to serve again without asking the database for all of it:

- the detail of a finished, failed or cancelled match: those states are final, and nothing about
  such a match changes afterwards (a failed match is run again as a new match);
- the leaderboard, as long as no rating and no rated version has changed: its key holds a
  fingerprint of those rows, read with one small aggregate query on every request.

What an entry may still miss (a bot renamed or a user renamed in the admin) lasts at most
API_RESPONSE_CACHE_SECONDS. Only what every reader may see is cached: a viewer who may see a
private field (an owner, staff) always gets a freshly computed response.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from rest_framework.request import Request

from tournaments.models import Match

FINAL_STATUSES = frozenset({Match.Status.FINISHED, Match.Status.FAILED, Match.Status.CANCELLED})


# Everything a leaderboard row shows that a service may change: the ratings themselves (``games``
# grows with every applied game; a recompute makes new rows) and the status of the rated versions
# (retiring one). One query, one pass over each of the two small tables, in SQL that SQLite (the
# default) and PostgreSQL both speak.
_LEADERBOARD_FINGERPRINT = """
    SELECT r.n, r.last_id, r.games, r.total, v.active, v.retired,
           (SELECT max(id) FROM tournaments_ratingfitrun) AS fit
    FROM (SELECT count(*) AS n, max(id) AS last_id, sum(games) AS games, sum(rating) AS total
          FROM tournaments_rating) r,
         (SELECT sum(CASE WHEN status = 'active' THEN 1 ELSE 0 END) AS active, max(retired_at) AS retired
          FROM bots_botversion) v
"""


def _cache() -> Any:
    return caches["api"]


def _seconds() -> int:
    return int(settings.API_RESPONSE_CACHE_SECONDS)


def _url_digest(request: Request) -> str:
    """The whole URL, host and query included: responses hold absolute links."""
    return hashlib.sha256(request.build_absolute_uri().encode()).hexdigest()[:32]


def leaderboard_key(request: Request) -> str | None:
    if not _seconds():
        return None
    with connection.cursor() as cursor:
        cursor.execute(_LEADERBOARD_FINGERPRINT)
        row = cursor.fetchone()
    fingerprint = hashlib.sha256(repr(row).encode()).hexdigest()[:16]
    return f"leaderboard:{fingerprint}:{_url_digest(request)}"


def match_detail_key(request: Request, pk: str) -> str | None:
    if not _seconds():
        return None
    base = request.build_absolute_uri("/")
    return f"match:{pk}:{hashlib.sha256(base.encode()).hexdigest()[:16]}"


def get(key: str | None) -> Any:
    return None if key is None else _cache().get(key)


def put(key: str | None, value: Any) -> None:
    if key is not None:
        _cache().set(key, value, _seconds())
