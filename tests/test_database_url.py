"""DATABASE_URL as an operator writes it (lineit_platform/database_url.py): every form PostgreSQL
and SQLite are given in, percent-encoding included, and a clear refusal for what cannot be read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from lineit_platform.database_url import database_from_url, redacted

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = Path("/srv/lineit/var/db.sqlite3")


def parse(url: str, **kwargs: Any) -> dict[str, Any]:
    return database_from_url(url, default_sqlite=DEFAULT, **kwargs)


def test_a_full_postgres_url() -> None:
    assert parse("postgres://lineit:s3cret@db.example.org:6432/arena?sslmode=require&connect_timeout=5") == {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "arena",
        "USER": "lineit",
        "PASSWORD": "s3cret",
        "HOST": "db.example.org",
        "PORT": "6432",
        "OPTIONS": {"sslmode": "require", "connect_timeout": "5"},
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False,
        "TEST": {"NAME": "test_arena"},
    }


@pytest.mark.parametrize(
    ("url", "host", "port"),
    [
        ("postgres://user@%2Fvar%2Frun%2Fpostgresql/dbname", "/var/run/postgresql", ""),
        ("postgres://user@%2Fvar%2Frun%2Fpostgresql:5433/dbname", "/var/run/postgresql", "5433"),
        ("postgresql://user@%2Ftmp%2FPG%20Sockets/dbname", "/tmp/PG Sockets", ""),  # case and spaces kept
        ("postgres://user@%2ftmp/dbname", "/tmp", ""),  # lower-case escapes too
        ("pgsql://user@[::1]:5432/dbname", "::1", "5432"),
        ("postgres://user@[2001:db8::7]/dbname", "2001:db8::7", ""),
        ("postgres://user@127.0.0.1/dbname", "127.0.0.1", ""),
        ("postgres:///dbname", "", ""),  # libpq's default socket
        ("POSTGRES://user@Db.Example.org/dbname", "Db.Example.org", ""),
    ],
)
def test_hosts_sockets_and_ports(url: str, host: str, port: str) -> None:
    config = parse(url)
    assert (config["HOST"], config["PORT"], config["NAME"]) == (host, port, "dbname")


def test_percent_encoded_credentials_and_names() -> None:
    config = parse("postgres://us%40er:p%40ss%3Aw%2Frd%23@host/my%20db")
    assert (config["USER"], config["PASSWORD"], config["NAME"]) == ("us@er", "p@ss:w/rd#", "my db")
    assert config["TEST"] == {"NAME": "test_my db"}


def test_a_socket_folder_given_as_a_query_parameter_reaches_psycopg() -> None:
    config = parse("postgres://user@/dbname?host=/var/run/postgresql")
    assert config["HOST"] == "" and config["OPTIONS"] == {"host": "/var/run/postgresql"}


def test_djangos_own_options_are_booleans() -> None:
    assert parse("postgres://h/db?pool=false&server_side_binding=true")["OPTIONS"] == {
        "pool": False,
        "server_side_binding": True,
    }


def test_kept_connections_are_health_checked() -> None:
    config = parse("postgres://h/db", conn_max_age=60)
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (60, True)


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("sqlite://", str(DEFAULT)),
        ("sqlite:///", str(DEFAULT)),
        ("sqlite:///var/db.sqlite3", "var/db.sqlite3"),
        ("sqlite:////srv/data/db.sqlite3", "/srv/data/db.sqlite3"),
        ("sqlite:////srv/my%20data/db.sqlite3", "/srv/my data/db.sqlite3"),
        ("sqlite://:memory:", ":memory:"),
        ("sqlite:///:memory:", ":memory:"),
    ],
)
def test_sqlite_urls(url: str, name: str) -> None:
    assert parse(url) == {"ENGINE": "django.db.backends.sqlite3", "NAME": name}


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://user@host/db", "must start with postgres:// or sqlite://"),
        ("db.sqlite3", "must look like"),
        ("", "must look like"),
        ("postgres://user:pw@host/", "names no database"),
        ("postgres://user:pw@host:port/db", "port that is not a number"),
        ("postgres://user:pw@host:99999/db", "port that is not a number"),
        ("postgres://user:pw@host:²/db", "port that is not a number"),
        ("postgres://user:pw@[::1/db", "IPv6"),
        ("postgres://user:pw@host/db#x", "fragment"),
        ("postgres://user:pw@host/db?pool=maybe", "true or false"),
        ("sqlite://var/db.sqlite3", "names a host"),
        ("sqlite:///db.sqlite3?mode=ro", "no query parameters"),
    ],
)
def test_what_cannot_be_read_is_refused_naming_the_variable_without_the_password(url: str, says: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL") as refused:
        parse(url)
    assert says in str(refused.value)
    assert "pw@" not in str(refused.value)


def test_redacted_hides_only_the_password() -> None:
    assert redacted("postgres://lineit:s3cret@db:5432/x") == "postgres://lineit:***@db:5432/x"
    assert redacted("postgres://lineit@db/x") == "postgres://lineit@db/x"


def test_the_settings_keep_and_health_check_connections_when_told_to() -> None:
    script = "from django.conf import settings; import json; print(json.dumps(settings.DATABASES['default']))"
    environment = os.environ | {"DJANGO_SETTINGS_MODULE": "lineit_platform.settings"}
    environment |= {"DATABASE_URL": "postgres://user@%2Fvar%2Frun%2Fpostgresql/arena", "DATABASE_CONN_MAX_AGE": "60"}
    output = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=environment, capture_output=True, text=True, check=True
    ).stdout
    config = json.loads(output)
    assert (config["HOST"], config["NAME"], config["TEST"]["NAME"]) == ("/var/run/postgresql", "arena", "test_arena")
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (60, True)
