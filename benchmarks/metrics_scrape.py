"""What a Prometheus scrape of /metrics costs over a big platform: the whole text (requests, the
platform's numbers, the broker's queue lengths) and the database's part alone, against counting
every match by status (what "matches by state" would cost done naively), interleaved in one
run. Prints each median in ms, the ratio, and PostgreSQL's plan for the pending count.

    .venv/bin/python benchmarks/metrics_scrape.py [--matches 1000000] [--rounds 15]

Its own database (lineit_metrics_bench, Redis db 3 unless DATABASE_URL / CELERY_BROKER_URL say
otherwise), filled once by copying one match row in SQL (rerun with --fresh to refill): almost
all finished, a few failed and cancelled, 50 queued and 8 running, as on a busy platform."""

from __future__ import annotations

import argparse
import statistics
import time

from scratch import scratch_platform


def fill(*, matches: int) -> None:
    from django.db import connection

    from lineit.engine import RULES_VERSION
    from tournaments.models import Match

    have = Match.objects.count()
    if have >= matches:
        return
    template = Match.objects.create(
        ruleset="standard", rules_version=RULES_VERSION, num_players=2, games=2, seed=1, status="finished"
    )
    table = Match._meta.db_table
    with connection.cursor() as cursor:
        columns = [
            column.name
            for column in connection.introspection.get_table_description(cursor, table)
            if column.name not in ("id", "status", "seed", "rating_order")
        ]
        listed = ", ".join(connection.ops.quote_name(name) for name in columns)
        status = (
            "CASE WHEN n <= 50 THEN 'queued' WHEN n <= 58 THEN 'running' WHEN n %% 97 = 0 THEN 'failed'"
            " WHEN n %% 89 = 0 THEN 'cancelled' ELSE 'finished' END"
        )
        cursor.execute(
            f"INSERT INTO {table} ({listed}, status, seed) SELECT {listed}, {status}, n FROM {table},"
            f" generate_series(1, %s) AS n WHERE id = %s",
            [matches - have - 1, template.pk],
        )
        cursor.execute(f"ANALYZE {table}")


def median_ms(call, rounds: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(1000 * (time.perf_counter() - started))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--fresh", action="store_true")
    options = parser.parse_args()
    scratch_platform("lineit_metrics_bench", redis_db=3, fresh=options.fresh)

    from django.db import connection
    from django.db.models import Count
    from prometheus_client import generate_latest

    from lineit_platform.metrics import _platform, scrape
    from tournaments.models import Match

    started = time.perf_counter()
    fill(matches=options.matches)
    print(f"{Match.objects.count():,} matches (filled in {time.perf_counter() - started:.1f} s)")

    def naive() -> None:
        list(Match.objects.order_by().values("status").annotate(n=Count("id")))

    scrape()  # connections opened, the statements prepared
    whole, database, counted = [], [], []
    for _ in range(options.rounds):  # interleaved: the machine's load falls on all three alike
        whole.append(median_ms(scrape, 1))
        database.append(median_ms(lambda: generate_latest(_platform), 1))
        counted.append(median_ms(naive, 1))
    whole_ms, platform_ms, naive_ms = (statistics.median(times) for times in (whole, database, counted))
    print(f"GET /metrics, the whole text:            {whole_ms:8.2f} ms (median of {options.rounds})")
    print(f"  the platform's numbers (DB + broker):  {platform_ms:8.2f} ms")
    print(f"every match counted by status:           {naive_ms:8.2f} ms")
    print(f"the naive count / the whole scrape:      {naive_ms / whole_ms:8.1f}x")
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN SELECT status, count(*) FROM tournaments_match WHERE status IN ('queued', 'running') GROUP BY status"
        )
        print("plan of the pending count: " + " / ".join(row[0].strip() for row in cursor.fetchall()))


if __name__ == "__main__":
    main()
