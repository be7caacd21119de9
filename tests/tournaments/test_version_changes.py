"""A version changes in the bots app, which only announces it (bots/signals.py: version_changed);
the tournaments app decides what follows (tournaments/receivers.py) and sends its own tasks after
commit: the ladder tick when the version's placement begins, its SPRT task on every activation
and retirement; nothing at all when the change is rolled back."""

from __future__ import annotations

import base64
from typing import Any

import orjson
import pytest
from django.db import transaction
from django.test import override_settings

from bots.services import bot_version_activate, bot_version_retire

pytestmark = pytest.mark.django_db

TICK, SPRT = "tournaments.tasks.ladder_tick", "tournaments.tasks.sprt_version_changed_task"


def sent(broker: Any) -> list[tuple[str, str, list[Any]]]:
    """The tasks waiting on the queues (kombu's Redis lists, one per queue and priority), as
    (queue, task name, arguments), sorted."""
    found = []
    for key in broker.scan_iter():
        queue = key.split(b"\x06\x16")[0].decode()  # "interactive\x06\x163": its priority 3
        if queue not in ("interactive", "bulk", "housekeeping"):
            continue
        for raw in broker.lrange(key, 0, -1):
            message = orjson.loads(raw)
            arguments = orjson.loads(base64.b64decode(message["body"]))[0]
            found.append((queue, message["headers"]["task"], arguments))
    return sorted(found)


def names(broker: Any) -> list[str]:
    return [name for _, name, _ in sent(broker)]


@override_settings(LADDER_ENABLED=True, PLACEMENT_GAMES=10)
def test_an_activation_that_begins_a_placement_ticks_the_ladder_and_starts_its_sprt(
    broker: Any, version_factory: Any, django_capture_on_commit_callbacks: Any
) -> None:
    version = version_factory(status="validating")
    with django_capture_on_commit_callbacks(execute=False) as pending:
        bot_version_activate(version=version)
    assert names(broker) == []  # nothing before the commit
    for callback in pending:
        callback()
    assert sent(broker) == [("housekeeping", TICK, []), ("interactive", SPRT, [version.pk])]
    assert version.in_placement


@override_settings(LADDER_ENABLED=True, PLACEMENT_GAMES=0)
def test_an_activation_without_a_placement_starts_only_its_sprt(
    broker: Any, version_factory: Any, django_capture_on_commit_callbacks: Any
) -> None:
    version = version_factory(status="validating")
    with django_capture_on_commit_callbacks(execute=True):
        bot_version_activate(version=version)
    assert names(broker) == [SPRT]


def test_a_retirement_sends_its_sprt_task_whatever_the_version_was(
    broker: Any, version_factory: Any, django_capture_on_commit_callbacks: Any
) -> None:
    active, rejected = version_factory(), version_factory(status="rejected")
    with django_capture_on_commit_callbacks(execute=True):
        bot_version_retire(version=active)
        bot_version_retire(version=rejected)  # out of play already: the task finds nothing to do
    assert sent(broker) == sorted([("interactive", SPRT, [active.pk]), ("interactive", SPRT, [rejected.pk])])


def test_a_change_rolled_back_sends_nothing(
    broker: Any, version_factory: Any, django_capture_on_commit_callbacks: Any
) -> None:
    version = version_factory(status="validating")
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError), transaction.atomic():
        bot_version_activate(version=version)
        bot_version_retire(version=version)
        raise RuntimeError("rolled back")
    version.refresh_from_db()
    assert version.status == "validating" and names(broker) == []
