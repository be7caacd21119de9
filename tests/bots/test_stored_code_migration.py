"""Migration bots.0006 copies the code already under MEDIA_ROOT into the database, so workers on
other hosts can read the versions uploaded before it; a version whose file is not on this host is
passed over, not an error."""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("bots", "0005_notifications")]
AFTER = [("bots", "0006_stored_code")]


def _migrate(targets: list[tuple[str, str]]):  # type: ignore[no-untyped-def]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_the_files_already_stored_are_copied_into_the_database(alice) -> None:  # type: ignore[no-untyped-def]
    apps = _migrate(BEFORE)
    try:
        code = f"def act(observation):  # {secrets.token_hex(8)}\n    return observation['legal_actions'][0]\n"
        sha256 = hashlib.sha256(code.encode()).hexdigest()
        present, absent = f"versions/{sha256}/bot.py", f"versions/{'0' * 64}/bot.py"
        (Path(settings.MEDIA_ROOT) / present).parent.mkdir(parents=True, exist_ok=True)
        (Path(settings.MEDIA_ROOT) / present).write_text(code)
        bot = apps.get_model("bots", "Bot").objects.create(owner_id=alice.pk, name="before-0006")
        for number, path in enumerate([present, absent], start=1):
            apps.get_model("bots", "BotVersion").objects.create(
                bot=bot, number=number, kind="py", path=path, sha256=sha256, size=len(code), uploaded_by_id=alice.pk
            )
        apps = _migrate(AFTER)
        stored = apps.get_model("bots", "StoredCode").objects
        assert bytes(stored.get(name=present).content) == code.encode()
        assert not stored.filter(name=absent).exists()
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())  # every migration, for the next tests
