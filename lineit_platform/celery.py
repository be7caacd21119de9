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
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineit_platform.settings")

app = Celery("lineit_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["bots", "tournaments", "lineit_platform.notifications"])


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
