"""``GET /health/``: whether this web process can serve, for load balancers and compose.

200 when the database answers and the broker takes a connection, 503 (with the same JSON) when
either does not, saying which and why in one line each. Also the messages waiting in each queue
(lineit_platform/queueing.py), all priorities counted, so an operator sees a backlog at a glance.
No login, no session, no cache: it must answer the same for anyone, quickly, whatever else is
down; it reads no row of any table.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from lineit_platform.queueing import QUEUES

BROKER_TIMEOUT_SECONDS = 2.0


def _one_line(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())[:300]


def _database() -> dict[str, Any]:
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        return {"ok": False, "error": _one_line(error)}
    return {"ok": True, "ms": round(1000 * (time.perf_counter() - started), 1)}


def _broker() -> dict[str, Any]:
    from lineit_platform.celery import app

    started = time.perf_counter()
    try:
        with app.connection_for_read(settings.CELERY_BROKER_URL) as broker:
            broker.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=BROKER_TIMEOUT_SECONDS)
            channel = broker.default_channel
            waiting = {}
            for queue in QUEUES:
                try:
                    waiting[queue] = channel.queue_declare(queue=queue, passive=True).message_count
                except Exception:  # a queue no one has declared yet holds nothing
                    waiting[queue] = 0
    except Exception as error:  # kombu's OperationalError, a socket error, a refused connection
        return {"ok": False, "error": _one_line(error)}
    return {"ok": True, "ms": round(1000 * (time.perf_counter() - started), 1), "queues": waiting}


@never_cache
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    database, broker = _database(), _broker()
    ok = database["ok"] and broker["ok"]
    return JsonResponse({"ok": ok, "database": database, "broker": broker}, status=200 if ok else 503)
