"""``GET /metrics``: the platform in Prometheus's text format (prometheus_client).

What a scrape reads, each cheap whatever the number of matches (no scan of a large table):

- requests by view, method and status, and their latencies: django-prometheus's middlewares,
  counted in each web process (in gunicorn, summed over its processes through
  PROMETHEUS_MULTIPROC_DIR: lineit_platform/metrics_gunicorn.py);
- ``lineit_matches{status}``: queued and running matches, counted on the status index (the
  pending matches are few; the ended ones, millions, are never counted here);
- ``lineit_matches_ended_total{status}``, ``lineit_match_duration_seconds`` (a histogram, from a
  match's start to its end) and ``lineit_game_failures_total{kind}``: tallies the workers add to
  as each match ends (record_match_ended, called from lineit_platform/celery.py), kept in the
  database (MetricTally), so that every worker on every host adds to the same numbers and any
  web process reads them in one query of a few rows. They count each match a worker's match
  task found ended, those the sweeper failed and those cancelled, once each (MetricTalliedMatch
  marks a match tallied, whichever got there first: tournaments/services/matches/after.py's match_ended
  tallies every match that ends, after commit, and the tasks' hook is kept as a second chance);
  a cancelled match has no duration;
- ``lineit_bot_code_damaged_total{outcome}``: copies of bot code found damaged when read
  (bots/storage.py, bots/code_cache.py): repaired from the database's copy, unrepaired (served
  from the copy, the file not written again), unrecoverable (no intact copy: refused);
- ``lineit_queue_messages{queue}``: the messages waiting in each queue, asked of the broker;
- ``lineit_workers{queue}``: the workers alive on each queue (their heartbeats).

Off unless METRICS_TOKEN is set; then only a request with ``Authorization: Bearer <token>`` is
answered (401 otherwise): the numbers tell an outsider how busy the platform is and which views
fail.
"""

from __future__ import annotations

import hmac
import logging
import os
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from lineit_platform.queueing import QUEUES

logger = logging.getLogger(__name__)

ENDED = "lineit_matches_ended"
DURATION = "lineit_match_duration_seconds"
FAILURES = "lineit_game_failures"
BOT_CODE_DAMAGED = "lineit_bot_code_damaged"
BOT_CODE_OUTCOMES = ("repaired", "unrepaired", "unrecoverable")
# Seconds from a match's start to its end: a two-game validation to an 8-hour tournament match.
DURATION_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0, 14400.0, 28800.0)
INFINITY = "+Inf"


# --- What workers add to --------------------------------------------------------------------------


def _bucket(seconds: float) -> str:
    for bound in DURATION_BUCKETS:
        if seconds <= bound:
            return repr(bound)
    return INFINITY


def tallies_add(additions: dict[tuple[str, str], float]) -> None:
    """Add each value to its tally (made at 0 the first time), in one statement: PostgreSQL and
    SQLite both upsert. In key order, so that two workers adding at once cannot deadlock."""
    from lineit_platform.models import MetricTally

    if not additions:
        return
    table = connection.ops.quote_name(MetricTally._meta.db_table)
    rows = sorted(additions.items())
    values = ", ".join(["(%s, %s, %s)"] * len(rows))
    parameters = [item for (name, label), value in rows for item in (name, label, value)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (name, label, value) VALUES {values} "
            f"ON CONFLICT (name, label) DO UPDATE SET value = {table}.value + excluded.value",
            parameters,
        )


def _first_to_tally(match_id: int) -> bool:
    """Mark match ``match_id`` tallied; False when it already was (another task got there)."""
    from lineit_platform.models import MetricTalliedMatch

    now = timezone.now()
    table = connection.ops.quote_name(MetricTalliedMatch._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (match_id, tallied_at) VALUES (%s, %s) ON CONFLICT (match_id) DO NOTHING",
            [match_id, now],
        )
        first = cursor.rowcount == 1
    if first:
        MetricTalliedMatch.objects.filter(tallied_at__lt=now - timedelta(days=1)).delete()
    return first


def record_match_ended(match_id: int) -> None:
    """Add match ``match_id`` to the tallies if it has ended and no task added it yet: its
    status, its duration and its games' failures by kind, in one transaction with the mark
    that it is counted. Called after each task that played (part of) a match."""
    from tournaments.selectors import operations

    match = operations.match_times(match_id)
    if match is None or match.pending:
        return
    with transaction.atomic():
        if not _first_to_tally(match_id):
            return
        additions: dict[tuple[str, str], float] = {(ENDED, match.status): 1.0}
        if match.status != operations.CANCELLED and match.started_at and match.finished_at:
            seconds = max(0.0, (match.finished_at - match.started_at).total_seconds())
            additions |= {(DURATION, _bucket(seconds)): 1.0, (f"{DURATION}_sum", ""): seconds}
        for kind, count in operations.match_failures_by_kind(match_id).items():
            additions[(FAILURES, kind)] = float(count)
        tallies_add(additions)


def record_failed_since(since: datetime) -> None:
    """Tally the matches the sweeper failed from ``since`` on (read on the status index: failed
    matches are few), each once, as record_match_ended does."""
    from tournaments.selectors.operations import matches_failed_since

    for match_id in matches_failed_since(since):
        record_match_ended(match_id)


def match_status(match_id: Any) -> str | None:
    from tournaments.selectors import operations

    return operations.match_status(match_id)


# --- What a scrape reads ----------------------------------------------------------------------------


def _tallies() -> dict[str, dict[str, float]]:
    from lineit_platform.models import MetricTally

    read: dict[str, dict[str, float]] = {}
    for name, label, value in MetricTally.objects.values_list("name", "label", "value"):
        read.setdefault(name, {})[label] = value
    return read


def _duration(buckets: dict[str, float], total: float) -> HistogramMetricFamily:
    family = HistogramMetricFamily(DURATION, "Matches by the seconds from their start to their end.")
    cumulative, rows = 0.0, []
    for bound in [*map(repr, DURATION_BUCKETS), INFINITY]:
        cumulative += buckets.get(bound, 0.0)
        rows.append((bound, cumulative))
    family.add_metric([], rows, sum_value=total)
    return family


class PlatformCollector(Collector):
    """The platform's own metrics, read afresh at each scrape (see the module's docstring)."""

    def collect(self) -> Iterator[Metric]:
        from lineit_platform.health import broker_queues
        from lineit_platform.heartbeats import workers_by_queue
        from tournaments.selectors import operations

        try:
            pending = operations.pending_counts()
            tallies = _tallies()
            workers = workers_by_queue(QUEUES)
        except DatabaseError as error:  # the scrape still says what it can: the requests, the queues
            logger.warning("metrics without the database's numbers: %s", error)
        else:
            matches = GaugeMetricFamily("lineit_matches", "Matches waiting or playing, by status.", labels=["status"])
            for status in operations.PENDING:
                matches.add_metric([str(status)], pending.get(status, 0))
            yield matches
            ended = CounterMetricFamily(ENDED, "Matches that ended, by how.", labels=["status"])
            for status in operations.ENDED:
                ended.add_metric([str(status)], tallies.get(ENDED, {}).get(status, 0.0))
            yield ended
            yield _duration(tallies.get(DURATION, {}), tallies.get(f"{DURATION}_sum", {}).get("", 0.0))
            failures = CounterMetricFamily(FAILURES, "Seats' failures in games, by kind.", labels=["kind"])
            for kind, value in sorted(tallies.get(FAILURES, {}).items()):
                failures.add_metric([kind], value)
            yield failures
            damaged = CounterMetricFamily(
                BOT_CODE_DAMAGED,
                "Copies of bot code found damaged when read, by outcome (repaired from an intact copy, "
                "unrepaired, unrecoverable: refused).",
                labels=["outcome"],
            )
            for outcome in BOT_CODE_OUTCOMES:
                damaged.add_metric([outcome], tallies.get(BOT_CODE_DAMAGED, {}).get(outcome, 0.0))
            yield damaged
            alive = GaugeMetricFamily("lineit_workers", "Workers alive (heartbeats), by queue.", labels=["queue"])
            for queue, names in workers.items():
                alive.add_metric([queue], len(names))
            yield alive
        waiting = broker_queues()
        if waiting is not None:
            messages = GaugeMetricFamily("lineit_queue_messages", "Messages waiting, by queue.", labels=["queue"])
            for queue, count in waiting.items():
                messages.add_metric([queue], count)
            yield messages


_platform = CollectorRegistry(auto_describe=False)
_platform.register(PlatformCollector())


def scrape() -> bytes:
    """The whole text: this process's metrics (or, in gunicorn, all its processes') and the
    platform's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        processes = CollectorRegistry()
        multiprocess.MultiProcessCollector(processes)
        own = generate_latest(processes)
    else:
        own = generate_latest(REGISTRY)
    return own + generate_latest(_platform)


def metrics_token_given(request: HttpRequest) -> bool:
    given = request.headers.get("Authorization", "")
    scheme, _, token = given.partition(" ")
    expected = settings.METRICS_TOKEN
    return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), expected.encode())


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS_TOKEN:
        raise Http404("metrics are off: set METRICS_TOKEN")
    if not metrics_token_given(request):
        response = HttpResponse("send Authorization: Bearer <METRICS_TOKEN>\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(scrape(), content_type=CONTENT_TYPE_LATEST)
