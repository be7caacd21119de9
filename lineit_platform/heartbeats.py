"""Workers' heartbeats: each Celery worker says it is alive, and which queues it serves, in the
database every WORKER_HEARTBEAT_SECONDS; /health/ and ``manage.py worker_health`` read them.

Why the database and not Celery's control ping: the embedded filesystem broker (``make run``) has
no control channel, while every worker, on any host and with any broker, reaches the database.
The beat runs in a thread of the worker's main process (started when the worker is ready, see
lineit_platform/celery.py), so a worker whose main process hangs or dies stops beating, whatever
its pool does; a warm shutdown removes the row at once. A worker is alive while its last beat is
younger than WORKER_HEARTBEAT_MISSED beats.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone

logger = logging.getLogger(__name__)

# The beat's heartbeat is named beat@host and serves no queue.
BEAT = "beat"
# A row older than this is a worker long gone (killed, its host removed): any worker removes it.
FORGET_AFTER = timedelta(days=1)


def alive_since(now: datetime | None = None) -> datetime:
    """The oldest beat that still counts as alive."""
    missed = settings.WORKER_HEARTBEAT_SECONDS * settings.WORKER_HEARTBEAT_MISSED
    return (now or timezone.now()) - timedelta(seconds=missed)


def heartbeat_write(*, name: str, queues: Iterable[str], started_at: datetime) -> None:
    """One beat of the worker ``name``: its row written (made on the first beat)."""
    from lineit_platform.models import WorkerHeartbeat

    now = timezone.now()
    WorkerHeartbeat.objects.update_or_create(
        name=name, defaults={"queues": list(queues), "pid": os.getpid(), "started_at": started_at, "seen_at": now}
    )
    WorkerHeartbeat.objects.filter(seen_at__lt=now - FORGET_AFTER).delete()


def heartbeat_remove(*, name: str) -> None:
    from lineit_platform.models import WorkerHeartbeat

    WorkerHeartbeat.objects.filter(name=name).delete()


def workers_by_queue(queues: Iterable[str], now: datetime | None = None) -> dict[str, list[str]]:
    """Each of ``queues`` with the names of the workers alive on it (sorted; [] for none)."""
    from lineit_platform.models import WorkerHeartbeat

    serving: dict[str, list[str]] = {queue: [] for queue in queues}
    for name, consumed in WorkerHeartbeat.objects.filter(seen_at__gte=alive_since(now)).values_list("name", "queues"):
        for queue in consumed:
            if queue in serving:
                serving[queue].append(name)
    return {queue: sorted(names) for queue, names in serving.items()}


def beats_alive(now: datetime | None = None) -> list[str]:
    """The names of the beats alive (one, unless someone scaled it)."""
    from lineit_platform.models import WorkerHeartbeat

    alive = WorkerHeartbeat.objects.filter(seen_at__gte=alive_since(now), name__startswith=f"{BEAT}@")
    return sorted(alive.values_list("name", flat=True))


def worker_alive(name: str, now: datetime | None = None) -> bool:
    from lineit_platform.models import WorkerHeartbeat

    return WorkerHeartbeat.objects.filter(name=name, seen_at__gte=alive_since(now)).exists()


class Heartbeat:
    """The thread that beats for one worker until stop(). A beat that fails (the database is
    restarting) is logged and the next one tries again: it never stops the worker."""

    def __init__(self, *, name: str, queues: Iterable[str]) -> None:
        self.name, self.queues = name, list(queues)
        self.started_at = timezone.now()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat {name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=10)
        try:
            heartbeat_remove(name=self.name)
        except DatabaseError as error:
            logger.warning("could not remove the heartbeat of %s: %s", self.name, error)
        finally:
            connection.close()

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                heartbeat_write(name=self.name, queues=self.queues, started_at=self.started_at)
            except DatabaseError as error:
                logger.warning("heartbeat of %s not written (%s); trying again", self.name, error)
            finally:
                connection.close()  # this thread's own connection: none held between beats
            self._stopped.wait(settings.WORKER_HEARTBEAT_SECONDS)
