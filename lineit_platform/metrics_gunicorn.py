"""gunicorn's settings for metrics across its processes: ``gunicorn -c
python:lineit_platform.metrics_gunicorn ...`` (the image and docker-compose start it so).

With PROMETHEUS_MULTIPROC_DIR set, every process of the web server writes its request counts into
files there and /metrics sums them all (prometheus_client's multiprocess mode; without it each
process would answer with its own counts, a different one each scrape). The folder is emptied
when gunicorn starts (counts of a previous run would be summed in), and a process that exits is
marked dead so its live gauges leave the sum."""

from __future__ import annotations

import os
import shutil
from typing import Any

from lineit.botkit.safe_paths import secure_folder


def on_starting(server: Any) -> None:
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        shutil.rmtree(folder, ignore_errors=True)  # never through a link (rmtree refuses one)
        # Made anew, this user's and private, every folder and link on its way root's or ours:
        # often under /tmp, where another user could have put a link to a folder of their choice.
        secure_folder(folder, mode=0o700)


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
