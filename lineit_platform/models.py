"""The operations' own rows: workers' heartbeats (lineit_platform/heartbeats.py) and the tallies
behind the Prometheus metrics that workers keep (lineit_platform/metrics.py). Both tables stay
tiny (a row per worker, a row per metric and label set), whatever the number of matches."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class WorkerHeartbeat(models.Model):
    """A Celery worker's main process, as it last said it was alive: written every
    WORKER_HEARTBEAT_SECONDS while it runs, removed when it stops warmly. A killed worker's row
    stays, growing old: /health/ counts only the recent ones and the worker's next start (or
    any worker after a day) removes it."""

    name = models.CharField(max_length=200, unique=True)  # Celery's node name: bulk@host
    queues = models.JSONField(default=list)  # the queues it consumes, in its order
    pid = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.name} ({', '.join(self.queues)})"


class MetricTally(models.Model):
    """One number of a metric that workers add to (matches ended by status, a match-duration
    histogram bucket, game failures by kind): added to with one upsert, read whole by /metrics."""

    name = models.CharField(max_length=100)
    label = models.CharField(max_length=100, blank=True)  # the one label's value ("" for none)
    value = models.FloatField(default=0.0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["name", "label"], name="metric_tally_name_label")]

    def __str__(self) -> str:
        return f"{self.name}{{{self.label}}} = {self.value}"


class MetricTalliedMatch(models.Model):
    """A match already added to the tallies: the first worker to see it ended adds it, whichever
    task that was (a redelivery, or one of the workers playing a chunked match's parts), and the
    others find this row. Rows older than a day are removed as new ones come (by then no task of
    the match is still running), so the table holds about a day of ended matches."""

    match_id = models.BigIntegerField(primary_key=True)
    tallied_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"match {self.match_id} tallied"


class UsernameKey(models.Model):
    """A user's name as a reader sees it (lineit_platform/confusables.py): written with the user
    whenever its name is set (lineit_platform/accounts.py), unique by both keys, so that no two
    users, whatever face made them and however simultaneous, have names a reader could take for
    each other (``аlice`` beside ``alice``, ``ALICE`` beside ``alice``). ``username`` is the name
    the keys were made from."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="username_key"
    )
    username = models.CharField(max_length=150)
    name_key = models.CharField(max_length=64, unique=True)
    folded_key = models.CharField(max_length=64, unique=True)

    def __str__(self) -> str:
        return f"name keys of {self.username}"
