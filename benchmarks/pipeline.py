"""Matches per minute through the whole pipeline, against the same games in the sandbox alone.

    python benchmarks/pipeline.py [--matches 6] [--games 100]

Pipeline: match_schedule (PostgreSQL) -> Redis -> one Celery worker (concurrency 1) -> sandbox ->
match_record_result (PostgreSQL, replays, ratings). Alone: the same specs through the sandbox
runner in this process. Both use two random bots. Goal: the pipeline adds at most 30 %.

Uses its own database (lineit_bench, created if missing) and Redis DB 14, unless DATABASE_URL
and CELERY_BROKER_URL say otherwise.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/lineit_bench")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineit_platform.settings")
sys.path.insert(0, str(ROOT))


def ensure_database() -> None:
    import psycopg

    from lineit_platform.database_url import database_from_url

    config = database_from_url(os.environ["DATABASE_URL"], default_sqlite=Path("unused.sqlite3"))
    with psycopg.connect(
        host=config["HOST"], port=config["PORT"] or 5432, user=config["USER"], dbname="postgres", autocommit=True
    ) as connection:
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [config["NAME"]]).fetchone():
            connection.execute(f'CREATE DATABASE "{config["NAME"]}"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    import redis
    from django.conf import settings
    from django.core.management import call_command

    from bots.runner import sandbox_match_run
    from bots.services import builtin_bots_register
    from tournaments.models import Match
    from tournaments.services.matches import match_schedule, match_spec

    call_command("migrate", verbosity=0)
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    (random_bot,) = builtin_bots_register(names=("random",))
    versions = [random_bot, random_bot]

    # Alone: engine + sandbox in this process.
    specs = [
        match_spec(
            Match(num_players=2, games=args.games, ruleset="standard", seed=s, rotate_seats=True, duplicate_deals=True)
        )
        for s in range(args.matches)
    ]
    started = time.perf_counter()
    for spec in specs:
        sandbox_match_run(spec=spec, sources=[v.source() for v in versions])
    alone = time.perf_counter() - started

    # Pipeline: a real worker.
    worker = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("celery")),
            "-A",
            "lineit_platform.celery",
            "worker",
            "-c",
            "1",
            "-l",
            "warning",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-Q",
            "interactive,bulk,housekeeping",
        ],
        cwd=ROOT,
    )
    try:
        time.sleep(3)  # let the worker connect and detect its sandbox tier before the clock starts
        started = time.perf_counter()
        ids = [match_schedule(versions=versions, games=args.games, seed=s).pk for s in range(args.matches)]
        while Match.objects.filter(pk__in=ids, status__in=Match.PENDING).exists():
            time.sleep(0.05)
        pipeline = time.perf_counter() - started
    finally:
        worker.terminate()
        worker.wait(30)
    statuses = set(Match.objects.filter(pk__in=ids).values_list("status", flat=True))
    per_minute = lambda seconds: args.matches / seconds * 60  # noqa: E731
    overhead = (pipeline / alone - 1) * 100
    print(f"{args.matches} matches of {args.games} games, two random bots ({statuses})")
    print(f"  engine + sandbox alone: {per_minute(alone):6.1f} matches/min ({alone:.2f} s)")
    print(f"  whole pipeline:         {per_minute(pipeline):6.1f} matches/min ({pipeline:.2f} s)")
    print(f"  pipeline overhead: {overhead:+.1f} % (goal: at most +30 %)")


if __name__ == "__main__":
    main()
