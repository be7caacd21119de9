"""The notification models moved from bots to the notifications app by Django's state alone (bots
0007, notifications 0001): on a database holding rows, going forward and back runs no statement on
their tables, keeps the very tables (same PostgreSQL oids, constraints and index) and every row,
readable through the models of whichever app holds them."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

from notifications.models import Notification, NotificationSettings

pytestmark = pytest.mark.django_db(transaction=True)

IN_BOTS = ("bots", "0006_stored_code")  # the last state with the models in bots
MOVED = ("notifications", "0001_initial")  # after bots 0007 gave them up
TABLES = ("bots_notification", "bots_notificationsettings")


def migrate(target: tuple[str, str]) -> tuple[Apps, list[str]]:
    """Migrate to ``target``: the models as of then, and the SQL it ran."""
    executor = MigrationExecutor(connection)
    with CaptureQueriesContext(connection) as captured:
        executor.migrate([target])
    executor.loader.build_graph()
    return executor.loader.project_state([target]).apps, [query["sql"] for query in captured]


def tables() -> dict[str, tuple[int, set[str]]]:
    """Each table's oid (a table made again or renamed has another) and its constraints' names."""
    with connection.cursor() as cursor:
        found = {}
        for table in TABLES:
            cursor.execute("SELECT %s::regclass::oid", [table])
            found[table] = (cursor.fetchone()[0], set(connection.introspection.get_constraints(cursor, table)))
        return found


def read(apps: Apps, app_label: str, user_id: int) -> tuple[Any, list[Any]]:
    settings = apps.get_model(app_label, "NotificationSettings").objects.get(user_id=user_id)
    rows = apps.get_model(app_label, "Notification").objects.filter(user_id=user_id).order_by("pk")
    return (settings.email_events, settings.webhook_url), list(
        rows.values_list("key", "channel", "status", "attempts", "payload")
    )


def test_the_move_is_state_only_and_keeps_the_rows_both_ways(alice: Any) -> None:
    try:
        migrate(MOVED)  # the tables as the move left them (before the app's own later migrations)
        before = tables()
        assert {"unique_notification_per_channel", "notification_user_recent"} <= before["bots_notification"][1]
        apps, _ = migrate(IN_BOTS)
        apps.get_model("bots", "NotificationSettings").objects.create(
            user_id=alice.pk, email_events=["sprt_decided"], webhook_url="https://93.184.215.14/hook"
        )
        made = apps.get_model("bots", "Notification").objects
        for key, channel in (("sprt:1:decided", "email"), ("sprt:1:decided", "webhook"), ("match:2:ended", "email")):
            made.create(
                user_id=alice.pk,
                event="sprt_decided",
                channel=channel,
                key=key,
                destination="alice@example.org",
                subject="s",
                text="t",
                payload={"sprt_id": 1},
                status="sent",
                attempts=2,
            )
        written = read(apps, "bots", alice.pk)
        assert len(written[1]) == 3

        apps, sql = migrate(MOVED)  # forward: bots 0007, then notifications 0001
        assert any("django_migrations" in statement for statement in sql)  # it ran, and was recorded
        assert not [statement for statement in sql if "bots_notification" in statement]
        assert tables() == before
        assert read(apps, "notifications", alice.pk) == written
        with pytest.raises(LookupError):
            apps.get_model("bots", "Notification")
        # The app's own models read the same rows (the state after 0001 is theirs).
        assert NotificationSettings.objects.get(user=alice).email_events == ["sprt_decided"]
        assert Notification.objects.filter(user=alice).count() == 3

        apps, sql = migrate(IN_BOTS)  # back: the models are bots' again, and so are the rows
        assert any("django_migrations" in statement for statement in sql)
        assert not [statement for statement in sql if "bots_notification" in statement]
        assert tables() == before
        assert read(apps, "bots", alice.pk) == written
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())  # every migration, for the next tests
