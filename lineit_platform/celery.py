"""The Celery app: ``celery -A lineit_platform.celery worker`` (and ``beat``, exactly one).

Configured from Django settings (the CELERY_* names). Kept out of ``lineit_platform/__init__``
so that importing the engine loads neither Django nor Celery; the tournaments app imports this
module in its ``ready()``, so web processes queue tasks through this app too.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineit_platform.settings")

app = Celery("lineit_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["bots", "tournaments"])
