"""``GET /health/``: whether this web process can serve, for load balancers and compose.

200 when the database answers and the broker takes a connection, 503 (with the same JSON) when
either does not, saying which and why in one line each. Also the messages waiting in each queue
(lineit_platform/queueing.py), all priorities counted, so an operator sees a backlog at a glance,
and the workers alive on each queue (their heartbeats: lineit_platform/heartbeats.py).

A queue that no worker serves, or no beat alive (nothing would tick the ladder or sweep), makes
the answer ``"degraded": true`` and names what is missing ("bulk", "beat"), but
stays 200: a load balancer asks /health/ whether to send this web process requests, and it can
serve them (pages, uploads, match requests queue up) while the workers are down; a 503 would take
the whole site away for what only delays matches. ``GET /health/?workers=required`` answers 503
then too, for a monitor or an orchestrator that watches the workers through the web.
No login, no session, no cache: it must answer the same for anyone, quickly, whatever else is
down; it reads no row but the workers' heartbeats (a row per worker). What it says of an error
depends on who asks: the line a driver writes names the database's or the broker's host and port,
so anyone but staff and the metrics token's bearer gets only the error's kind
(``OperationalError``), and the whole line goes to the log.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from lineit_platform.queueing import QUEUES

logger = logging.getLogger(__name__)

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


def broker_queues() -> dict[str, int] | None:
    """The messages waiting in each queue; None when the broker cannot be asked."""
    answer = _broker()
    return answer["queues"] if answer["ok"] else None


def _workers(*, names: bool) -> dict[str, Any]:
    """The workers alive on each queue and the beats: their node names for staff and the metrics
    token's bearer, only how many for anyone else (the names say which hosts run the platform)."""
    from lineit_platform.heartbeats import beats_alive, workers_by_queue

    try:
        serving, beats = workers_by_queue(QUEUES), beats_alive()
    except DatabaseError as error:
        return {"ok": False, "error": _one_line(error)}
    missing = [queue for queue, alive in serving.items() if not alive] + ([] if beats else ["beat"])
    if not names:
        return {
            "ok": not missing,
            "queues": {queue: len(alive) for queue, alive in serving.items()},
            "beat": len(beats),
            "missing": missing,
        }
    return {"ok": not missing, "queues": serving, "beat": beats, "missing": missing}


def _names_shown(request: HttpRequest, *, database_ok: bool = True) -> bool:
    """Staff (asked only while the database answers: a session is read there) and the metrics
    token's bearer."""
    from lineit_platform.metrics import metrics_token_given

    if bool(settings.METRICS_TOKEN) and metrics_token_given(request):
        return True
    return database_ok and bool(getattr(request.user, "is_staff", False))


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


def _told(check: str, answer: dict[str, Any], *, details: bool) -> dict[str, Any]:
    """``answer`` as this client may read it: an error's whole line for staff, its kind for anyone
    else (the line names hosts and ports); the line is logged either way."""
    error = answer.get("error")
    if error is None:
        return answer
    logger.warning("health: the %s does not answer: %s", check, error)
    if details:
        return answer
    return {**answer, "error": str(error).split(":", 1)[0]}


@never_cache
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    database, broker = _database(), _broker()
    details = _names_shown(request, database_ok=database["ok"])
    database, broker = _told("database", database, details=details), _told("broker", broker, details=details)
    workers = (
        _told("heartbeats", _workers(names=details), details=details)
        if database["ok"]
        else {"ok": False, "error": "the database does not answer"}
    )
    ok = database["ok"] and broker["ok"]
    degraded = not workers["ok"]
    body = {"ok": ok, "degraded": degraded, "database": database, "broker": broker, "workers": workers}
    required = request.GET.get("workers") == "required"
    return JsonResponse(body, status=200 if ok and not (degraded and required) else 503)
