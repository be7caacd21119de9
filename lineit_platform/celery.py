"""The Celery app: ``celery -A lineit_platform.celery worker`` (and ``beat``, exactly one).

Configured from Django settings (the CELERY_* names). The project's app config
(lineit_platform/apps.py) imports it when Django is ready, so web processes send tasks through
this app too (lineit_platform/queueing.py).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery
from celery.signals import beat_init, task_postrun, task_prerun, worker_init, worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineit_platform.settings")

app = Celery("lineit_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["bots", "tournaments", "notifications"])


@worker_init.connect
def prepare_the_sandbox(**_: Any) -> None:
    """At worker start-up, before the pool's processes fork: remove the sandbox folders of
    processes that are gone (a worker killed outright cleans nothing), and find the sandbox tier
    once, saying which in the log (the pool's processes inherit it; every match records it)."""
    from lineit.botkit.scratch import sweep_stale_folders
    from lineit.sandbox import SandboxUnavailable, detect_tier, require_tier

    log = logging.getLogger("lineit.worker")
    removed = sweep_stale_folders()
    if removed:
        log.info("removed %d temporary sandbox folders left by processes that are gone", len(removed))
    try:
        log.info("bots run in the %s sandbox tier (%s)", require_tier(), detect_tier().explain())
    except SandboxUnavailable as error:
        log.error("no sandbox tier to run bots in; matches will not be run: %s", error)


_heartbeat: Any = None


@worker_ready.connect
def start_the_heartbeat(sender: Any, **_: Any) -> None:
    """The worker says it is alive, and on which queues, every WORKER_HEARTBEAT_SECONDS
    (lineit_platform/heartbeats.py): /health/ reads it, whatever the broker."""
    global _heartbeat
    from lineit_platform.heartbeats import Heartbeat

    queues = list(sender.app.amqp.queues.consume_from or sender.app.amqp.queues)
    _heartbeat = Heartbeat(name=sender.hostname, queues=queues)
    _heartbeat.start()


@beat_init.connect
def start_the_beat_heartbeat(**_: Any) -> None:
    """The beat beats too, as ``beat@host`` on no queue: /health/ says whether one is alive."""
    global _heartbeat
    import socket

    from lineit_platform.heartbeats import BEAT, Heartbeat

    _heartbeat = Heartbeat(name=f"{BEAT}@{socket.gethostname()}", queues=[])
    _heartbeat.start()


@worker_shutdown.connect
def stop_the_heartbeat(**_: Any) -> None:
    if _heartbeat is not None:
        _heartbeat.stop()


# --- Metrics the workers keep (lineit_platform/metrics.py) -------------------------------------

# The tasks that play a match, its id their first argument: the one that ends it tallies it.
MATCH_TASKS = frozenset({"tournaments.tasks.match_run_task"})
SWEEP_TASK = "tournaments.tasks.matches_sweep"
_status_before: dict[str, str | None] = {}
_sweep_started: dict[str, Any] = {}


@task_prerun.connect
def note_the_match_status(task_id: str, task: Any, args: Any = (), **_: Any) -> None:
    if task.name in MATCH_TASKS and args:
        from lineit_platform.metrics import match_status

        try:
            _status_before[task_id] = match_status(args[0])
        except Exception:  # the task itself will meet (and report) the database's trouble
            _status_before[task_id] = None
    elif task.name == SWEEP_TASK:
        from django.utils import timezone

        _sweep_started[task_id] = timezone.now()


@task_postrun.connect
def tally_what_the_task_ended(task_id: str, task: Any, args: Any = (), retval: Any = None, **_: Any) -> None:
    """A match task that found its match pending and leaves it ended adds it to the metrics'
    tallies, once whatever the number of tasks that played it (record_match_ended marks it); the
    sweeper adds the matches it failed (their lease ran out with no attempt left). A tally lost to
    a database error is logged, never the task's failure."""
    from lineit_platform.metrics import record_failed_since, record_match_ended

    try:
        if task.name in MATCH_TASKS and args:
            before = _status_before.pop(task_id, None)
            if before in ("queued", "running"):
                record_match_ended(args[0])
        elif task.name == SWEEP_TASK:
            started = _sweep_started.pop(task_id, None)
            if started is not None and isinstance(retval, dict) and retval.get("failed"):
                record_failed_since(started)
    except Exception as error:
        logging.getLogger("lineit.worker").warning("metrics not tallied for task %s: %s", task.name, error)
