"""Over a connection kept between requests, queries are prepared statements (Django's database
OPTIONS, settings.py) that give the answers a connection per request gives; and they outlive
nothing they should: after another connection changes the type of a column a prepared query
selects (a migration while web processes run), the query is prepared again instead of failing
until the connection is recycled (lineit_platform/database.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection

pytestmark = pytest.mark.django_db(transaction=True)


def other_connection() -> psycopg.Connection[Any]:
    database = connection.settings_dict
    return psycopg.connect(
        host=database["HOST"], port=database["PORT"], user=database["USER"], dbname=database["NAME"], autocommit=True
    )


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This test's connection as the web processes keep theirs (DATABASE_CONN_MAX_AGE > 0)."""
    connection.close()
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)
    monkeypatch.setitem(
        connection.settings_dict, "OPTIONS", {**connection.settings_dict["OPTIONS"], "prepare_threshold": 1}
    )
    yield
    connection.close()  # the next test connects as configured


def prepared_statements() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements")
        return int(cursor.fetchone()[0])


def test_reads_over_a_kept_connection_are_prepared_and_answer_the_same(  # type: ignore[no-untyped-def]
    kept, alice, bob, version_factory, play_match, anonymous, settings
) -> None:
    settings.API_RESPONSE_CACHE_SECONDS = 0  # every read from the database
    match = play_match([version_factory(bot__owner=alice), version_factory(bot__owner=bob)], ranked=True, games=2)
    urls = [
        "/api/matches/?page_size=5",
        f"/api/matches/?bot={match.entrants.first().version.bot_id}",
        f"/api/matches/{match.pk}/",
        f"/api/games/?match={match.pk}",
        "/api/leaderboard/",
    ]
    once = [anonymous.get(url).content for url in urls]  # each query's first run: not prepared yet
    before = prepared_statements()
    for _ in range(2):  # prepared, then run as prepared
        assert [anonymous.get(url).content for url in urls] == once
    assert prepared_statements() >= before + len(urls)


def test_a_prepared_read_survives_a_column_type_change_by_another_connection(kept: None) -> None:
    with other_connection() as other:
        other.execute("DROP TABLE IF EXISTS lineit_prepared_probe")
        other.execute("CREATE TABLE lineit_prepared_probe (n integer)")
        other.execute("INSERT INTO lineit_prepared_probe VALUES (7)")

        def read() -> list[Any]:
            with connection.cursor() as cursor:
                cursor.execute("SELECT n FROM lineit_prepared_probe WHERE n IS NOT NULL LIMIT %s", [5])
                return list(cursor.fetchall())

        try:
            assert read() == [(7,)]
            assert read() == [(7,)]  # now as a prepared statement
            assert prepared_statements() >= 1

            other.execute("ALTER TABLE lineit_prepared_probe ALTER COLUMN n TYPE text")

            assert read() == [("7",)]
            assert read() == [("7",)]
        finally:
            other.execute("DROP TABLE IF EXISTS lineit_prepared_probe")
