"""A version whose validation message was lost (the broker was down at the upload) is not stuck
for good: the sweeper sends its validation again past BOT_VALIDATION_RESEND_AFTER_SECONDS, and its
owner can retire it (or any version) whatever its state, then upload the same file again.

The broker that refuses a message here is a real Celery app pointed at a port where nothing
listens; nothing is mocked."""

from __future__ import annotations

import functools
import logging
from datetime import timedelta

import pytest
from celery import Celery
from django.conf import settings
from django.utils import timezone
from redis_server import free_port

from bots.models import BotVersion
from bots.services import (
    bot_create,
    bot_validations_resend,
    bot_version_retire,
    bot_version_upload,
    bot_version_validate,
)
from lineit_platform.errors import Forbidden
from lineit_platform.queueing import send, send_after_commit
from tournaments.services.matches.sweeper import matches_sweep

pytestmark = pytest.mark.django_db

GOOD_BOT = b"def act(observation):\n    return observation['legal_actions'][0]\n"
DEADLINE = timedelta(seconds=settings.BOT_VALIDATION_RESEND_AFTER_SECONDS)


def upload(bot, user, content: bytes = GOOD_BOT, **kwargs) -> BotVersion:  # type: ignore[no-untyped-def]
    return bot_version_upload(bot=bot, uploaded_by=user, filename="bot.py", content=content, **kwargs)


@functools.cache
def dead_broker() -> Celery:
    """A real Celery app whose Redis broker is a port where nothing listens."""
    app = Celery("dead-broker", set_as_current=False)
    # The write URL: Celery prefers a CELERY_BROKER_URL variable (the tests' own broker) to broker_url.
    app.conf.broker_write_url = f"redis://127.0.0.1:{free_port()}/0"
    app.conf.task_publish_retry_policy = {"max_retries": 0}
    return app


# --- The broker is down at the upload ---------------------------------------------------------


def test_a_message_the_broker_refuses_is_logged_not_raised(caplog) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.WARNING, logger="lineit_platform.queueing"):
        assert (
            send("bots.tasks.bot_version_validate_task", 7, what="the validation of version 7", app=dead_broker())
            is False
        )
    assert "could not send the validation of version 7" in caplog.text and "sweeper" in caplog.text


def test_after_commit_a_refused_message_leaves_the_committed_write_alone(  # type: ignore[no-untyped-def]
    alice, django_capture_on_commit_callbacks
) -> None:
    bot = bot_create(owner=alice, name="offline")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        version = upload(bot, alice, validate=False)
        send_after_commit(
            "bots.tasks.bot_version_validate_task",
            version.pk,
            what=f"the validation of version {version.pk}",
            app=dead_broker(),
        )
    assert len(callbacks) == 1  # it ran, failed to send, and raised nothing
    assert BotVersion.objects.get(pk=version.pk).status == "validating"


# --- The sweeper sends stuck validations again -------------------------------------------------


def test_the_sweeper_sends_a_stuck_validation_again_once_past_the_deadline(  # type: ignore[no-untyped-def]
    alice, version_factory, django_capture_on_commit_callbacks
) -> None:
    bot = bot_create(owner=alice, name="stuck")
    with django_capture_on_commit_callbacks(execute=False):
        stuck = upload(bot, alice)  # its message is never delivered
    sent_at = stuck.validation_sent_at
    assert sent_at is not None
    version_factory()  # active: nothing to send
    unsent = upload(bot_create(owner=alice, name="manual"), alice, validate=False)  # validated by its caller

    assert bot_validations_resend(now=sent_at + DEADLINE - timedelta(seconds=1)) == 0  # not yet
    later = sent_at + DEADLINE + timedelta(seconds=1)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        counts = matches_sweep(now=later)
    assert counts["validations_resent"] == 1 and len(callbacks) == 1
    assert BotVersion.objects.get(pk=stuck.pk).validation_sent_at == later
    assert BotVersion.objects.get(pk=unsent.pk).validation_sent_at is None
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert matches_sweep(now=later + timedelta(seconds=1))["validations_resent"] == 0  # sent just now
    assert callbacks == []


def test_a_validation_still_waiting_behind_others_is_not_sent_twice(  # type: ignore[no-untyped-def]
    alice, broker, django_capture_on_commit_callbacks
) -> None:
    """Its message waits in the interactive queue past the deadline (a burst of uploads): the
    broker still holds it, so the sweeper sends nothing; once the broker lost it, it sends it."""
    with django_capture_on_commit_callbacks(execute=True):
        waiting_one = upload(bot_create(owner=alice, name="waiting"), alice)
    assert broker.llen("interactive") == 1
    later = waiting_one.validation_sent_at + DEADLINE + timedelta(seconds=1)
    assert bot_validations_resend(now=later) == 0
    broker.delete("interactive")  # lost
    assert bot_validations_resend(now=later) == 1


def test_the_resent_validation_validates_the_version(alice, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    bot = bot_create(owner=alice, name="resent")
    with django_capture_on_commit_callbacks(execute=False):
        version = upload(bot, alice)
    assert version.validation_sent_at is not None
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert bot_validations_resend(now=version.validation_sent_at + DEADLINE + timedelta(seconds=1)) == 1
    assert len(callbacks) == 1  # the task is sent again after commit
    # What the worker does with the message, in this process: the task's own service, for real.
    assert bot_version_validate(version_id=version.pk).status == "active"
    assert bot_validations_resend(now=timezone.now() + 2 * DEADLINE) == 0  # active: done


# --- Retiring a version in any state ------------------------------------------------------------


@pytest.mark.parametrize(("state", "after"), [("validating", "retired"), ("active", "retired")])
def test_the_owner_retires_a_live_version(alice, version_factory, state, after) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice, status=state)
    retired = bot_version_retire(version=version, retired_by=alice)
    assert retired.status == after and retired.retired_at is not None
    assert BotVersion.objects.get(pk=version.pk).status == after


@pytest.mark.parametrize("state", ["rejected", "retired"])
def test_a_version_out_of_play_already_is_answered_as_it_is(alice, version_factory, state) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice, status=state)
    assert bot_version_retire(version=version, retired_by=alice).status == state


def test_a_retired_stuck_version_is_never_validated_and_its_file_may_come_again(  # type: ignore[no-untyped-def]
    alice, django_capture_on_commit_callbacks
) -> None:
    bot = bot_create(owner=alice, name="given-up")
    with django_capture_on_commit_callbacks(execute=False):
        stuck = upload(bot, alice)
    bot_version_retire(version=stuck, retired_by=alice)
    assert bot_version_validate(version_id=stuck.pk).status == "retired"  # the late message finds nothing
    assert bot_validations_resend(now=timezone.now() + 2 * DEADLINE) == 0
    with django_capture_on_commit_callbacks(execute=False):
        again = upload(bot, alice)  # the same file: a new version, validated afresh
    assert (again.number, again.status) == (2, "validating")


def test_only_the_owner_or_staff_retire_a_version(alice, bob, staff, version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice)
    with pytest.raises(Forbidden):
        bot_version_retire(version=version, retired_by=bob)
    assert BotVersion.objects.get(pk=version.pk).status == "active"
    assert bot_version_retire(version=version, retired_by=staff).status == "retired"
