"""The migrations that give every user and every bot the keys of their name (lineit_platform 0003,
bots 0009) on a database that already holds look-alikes: both are kept (the later one's key made
unique with its id) and named for the operators; from then on a new look-alike is refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from bots.models import Bot
from lineit_platform.confusables import name_key
from lineit_platform.models import UsernameKey

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("lineit_platform", "0002_tallied_matches"), ("bots", "0008_stored_code_sha256")]
AFTER = [("lineit_platform", "0003_username_keys"), ("bots", "0009_bot_name_key")]


def migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def test_look_alikes_already_there_are_kept_and_named_and_new_ones_refused(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        apps = migrate(BEFORE)
        User = apps.get_model("auth", "User")
        HistoricalBot = apps.get_model("bots", "Bot")
        first, second = User.objects.create(username="alice"), User.objects.create(username="\u0430lice")
        HistoricalBot.objects.create(owner_id=first.pk, name="random")
        HistoricalBot.objects.create(owner_id=second.pk, name="rand0m")

        migrate(AFTER)
        printed = capsys.readouterr().out
        assert "users 'alice' and '\u0430lice' have look-alike names: both kept" in printed
        assert "bots 'random' and 'rand0m' have look-alike names: both kept" in printed
        assert UsernameKey.objects.get(user_id=first.pk).name_key == name_key("alice")
        assert UsernameKey.objects.get(user_id=second.pk).name_key != name_key("alice")
        assert Bot.objects.get(name="random").name_key == name_key("random")

        kept = get_user_model().objects.get(pk=second.pk)
        kept.set_password("a-long-passphrase-42")
        kept.save()  # the kept look-alike saves as before
        with pytest.raises(IntegrityError), transaction.atomic():
            get_user_model().objects.create(username="a1ice")
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
