"""Prepared statements outlive nothing they should: after another connection changes the type of
a column a kept connection's prepared read selects (a migration while web processes run), the
read is prepared again instead of failing until the connection is recycled."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import connection

from lineit_platform.api import reads

pytestmark = pytest.mark.django_db(transaction=True)


def other_connection() -> psycopg.Connection[Any]:
    database = connection.settings_dict
    return psycopg.connect(
        host=database["HOST"], port=database["PORT"], user=database["USER"], dbname=database["NAME"], autocommit=True
    )


def test_a_prepared_read_survives_a_column_type_change_by_another_connection(monkeypatch: Any) -> None:
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)  # a kept connection: reads are prepared
    with other_connection() as other:
        other.execute("DROP TABLE IF EXISTS lineit_prepared_probe")
        other.execute("CREATE TABLE lineit_prepared_probe (n integer)")
        other.execute("INSERT INTO lineit_prepared_probe VALUES (7)")
        try:
            assert reads.fetch("SELECT n FROM lineit_prepared_probe") == [(7,)]
            assert reads.fetch("SELECT n FROM lineit_prepared_probe") == [(7,)]  # now as the prepared statement

            other.execute("ALTER TABLE lineit_prepared_probe ALTER COLUMN n TYPE text")

            assert reads.fetch("SELECT n FROM lineit_prepared_probe") == [("7",)]
            assert reads.fetch("SELECT n FROM lineit_prepared_probe") == [("7",)]
        finally:
            other.execute("DROP TABLE IF EXISTS lineit_prepared_probe")
