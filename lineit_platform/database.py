"""Prepared statements outlive nothing they should.

Over a connection kept between requests, psycopg prepares each query (settings: Django's
``server_side_binding`` and ``prepare_threshold`` OPTIONS). A prepared statement belongs to its
connection: when another connection changes the type of a column it selects (a migration while
the web processes run), PostgreSQL refuses it ("cached plan must not change result type") until
the connection is closed, up to DATABASE_CONN_MAX_AGE later. Every query of such a connection goes
through ``replan``, Django's own execute wrapper: it drops the connection's statements and asks
once more; inside a transaction the failed statement has aborted it, so not there (the rollback
drops them).
"""

from __future__ import annotations

from typing import Any

from django.db import NotSupportedError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created

OUTDATED = "cached plan must not change result type"


def replan(execute: Any, sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
    try:
        return execute(sql, params, many, context)
    except NotSupportedError as error:
        database: BaseDatabaseWrapper = context["connection"]
        if OUTDATED not in str(error) or database.in_atomic_block:
            raise
        with database.cursor() as cursor:
            cursor.execute("DEALLOCATE ALL")  # psycopg forgets its own list of them too
        return execute(sql, params, many, context)


def _prepared_connection(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    prepares = connection.settings_dict["OPTIONS"].get("prepare_threshold") is not None
    if connection.vendor == "postgresql" and prepares and replan not in connection.execute_wrappers:
        connection.execute_wrappers.append(replan)


connection_created.connect(_prepared_connection, dispatch_uid="lineit_platform.database.replan")
