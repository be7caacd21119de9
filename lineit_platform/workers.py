"""A worker process as the rows it writes see it: its name, whether it is gone, and a database
call that outlives a dropped connection.

Below the apps: the match pipeline (tournaments/services/matches/) names its workers with
``worker_name`` on its match and chunk rows, asks ``worker_gone`` before it takes a chunk from
another worker before its lease ends, and calls its claims and records through
``database_retried``.
"""

from __future__ import annotations

import functools
import logging
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

_Result = TypeVar("_Result")


def database_retried(call: Callable[..., _Result], **kwargs: Any) -> _Result:
    """``call(**kwargs)``, again on a new connection while the database cannot be reached, for
    up to MATCH_DATABASE_RETRY_SECONDS: a worker whose connection dropped (a database restart, a
    fail-over) records the games it played instead of losing them. Each call is one transaction
    that checks its attempt first, so running it twice changes nothing more. Inside a caller's
    transaction (tests) it is not retried: that transaction is lost with the connection."""
    deadline = time.monotonic() + settings.MATCH_DATABASE_RETRY_SECONDS
    pause = 0.2
    while True:
        try:
            return call(**kwargs)
        except (OperationalError, InterfaceError) as error:
            if connection.in_atomic_block or time.monotonic() + pause > deadline:
                raise
            logger.warning("%s: the database did not answer (%s); trying again in %.1f s", call.__name__, error, pause)
            connection.close()
            time.sleep(pause)
            pause = min(pause * 2, 5.0)


@functools.cache
def process_space() -> str:
    """Which processes a pid names here: this boot of this kernel and this PID namespace. Two
    containers (or cloned hosts) may share a host name, never all three."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()[:8]
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return ""
    return f"{boot}-{namespace}"


def worker_name(node: str | None) -> str:
    """This worker process's name on its match and chunk rows: ``node:space:pid`` (its Celery node
    name, process_space, its pid), from which worker_gone can tell a dead process of this host."""
    return f"{node or socket.gethostname()}:{process_space()}:{os.getpid()}"


def worker_gone(worker: str) -> bool:
    """Whether the worker process named ``worker`` (worker_name) is known to be dead: it ran in
    this process space (this boot, this PID namespace) and its process is gone. A worker
    elsewhere is gone only when its lease runs out."""
    rest, _, pid = worker.rpartition(":")
    _, _, space = rest.rpartition(":")
    if not pid.isdigit() or not space or space != process_space():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False
