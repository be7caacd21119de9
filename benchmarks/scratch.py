"""A scratch platform for the benchmarks that run the whole pipeline: its own PostgreSQL database
and Redis database, Django set up on them and migrated, the broker emptied.

    from scratch import scratch_platform
    scratch_platform("lineit_bench", redis_db=14)      # before importing any model

DATABASE_URL and CELERY_BROKER_URL, when set, name other ones. ``fresh`` drops the database
first (a benchmark that counts rows wants none from an earlier run)."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def scratch_platform(database: str, *, redis_db: int, fresh: bool = False) -> None:
    os.environ.setdefault("DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{database}")
    os.environ.setdefault("CELERY_BROKER_URL", f"redis://127.0.0.1:6379/{redis_db}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineit_platform.settings")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))  # the workers it starts inherit it
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    _database(fresh=fresh)
    import django

    django.setup()
    import redis
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


def _database(*, fresh: bool) -> None:
    import psycopg

    from lineit_platform.database_url import database_from_url

    config = database_from_url(os.environ["DATABASE_URL"], default_sqlite=Path("unused.sqlite3"))
    with psycopg.connect(
        host=config["HOST"], port=config["PORT"] or 5432, user=config["USER"], dbname="postgres", autocommit=True
    ) as connection:
        if fresh:
            connection.execute(f'DROP DATABASE IF EXISTS "{config["NAME"]}" WITH (FORCE)')
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [config["NAME"]]).fetchone():
            connection.execute(f'CREATE DATABASE "{config["NAME"]}"')
