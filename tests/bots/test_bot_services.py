"""Uploading, validating, retiring and registering bots, on PostgreSQL with the real sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from bots.code_cache import version_code
from bots.models import Bot, BotVersion, StoredCode
from bots.services import (
    bot_create,
    bot_version_activate,
    bot_version_retire,
    bot_version_upload,
    bot_version_validate,
    builtin_bots_register,
    system_user,
)
from bots.uploads import UploadRejected
from lineit.botkit.sources import BUILTIN_DIR
from lineit_platform.errors import ApplicationError, Conflict, Forbidden

pytestmark = pytest.mark.django_db

GOOD_BOT = b"def act(observation):\n    return observation['legal_actions'][0]\n"
CRASHING_BOT = b"""import sys

def act(observation):
    print("alice's private debug line", file=sys.stderr)
    raise RuntimeError("boom in act")
"""
BROKEN_IMPORT = b"import no_such_module_anywhere\n\ndef act(observation):\n    return observation['legal_actions'][0]\n"


def upload(bot: Bot, user, content: bytes, filename: str = "bot.py", **kwargs) -> BotVersion:  # type: ignore[no-untyped-def]
    return bot_version_upload(bot=bot, uploaded_by=user, filename=filename, content=content, **kwargs)


def test_alice_uploads_a_version_which_waits_for_validation(alice, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    bot = bot_create(owner=alice, name="alices-bot")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        version = upload(bot, alice, GOOD_BOT)
    assert version.status == BotVersion.Status.VALIDATING
    assert version.number == 1 and version.size == len(GOOD_BOT) and len(version.sha256) == 64
    assert version_code(version) == GOOD_BOT
    # The default bot storage: a file under MEDIA_ROOT by content hash, and its copy in the database
    assert version.path == f"versions/{version.sha256}/bot.py"
    assert (Path(settings.MEDIA_ROOT) / version.path).read_bytes() == GOOD_BOT
    assert bytes(StoredCode.objects.get(name=version.path).content) == GOOD_BOT
    assert len(callbacks) == 1  # the validation task, queued once the upload is committed


def test_versions_are_numbered_per_bot(alice) -> None:  # type: ignore[no-untyped-def]
    bot = bot_create(owner=alice, name="counting")
    first = upload(bot, alice, GOOD_BOT, validate=False)
    second = upload(bot, alice, GOOD_BOT + b"# v2\n", validate=False)
    assert (first.number, second.number) == (1, 2)


def test_the_same_file_twice_is_a_conflict(alice) -> None:  # type: ignore[no-untyped-def]
    bot = bot_create(owner=alice, name="twice")
    upload(bot, alice, GOOD_BOT, validate=False)
    with pytest.raises(Conflict, match="already twice@v1"):
        upload(bot, alice, GOOD_BOT, validate=False)


def test_bob_cannot_upload_to_alices_bot(alice, bob) -> None:  # type: ignore[no-untyped-def]
    bot = bot_create(owner=alice, name="mine")
    with pytest.raises(Forbidden):
        upload(bot, bob, GOOD_BOT)
    assert not BotVersion.objects.exists()


def test_a_refused_upload_stores_nothing(alice) -> None:  # type: ignore[no-untyped-def]
    bot = bot_create(owner=alice, name="refused")
    with pytest.raises(UploadRejected, match="syntax error"):
        upload(bot, alice, b"def act(:\n")
    assert not BotVersion.objects.exists()


def test_bot_names_are_unique_and_checked(alice, bob) -> None:  # type: ignore[no-untyped-def]
    bot_create(owner=alice, name="taken")
    with pytest.raises(ApplicationError, match="name"):
        bot_create(owner=bob, name="taken")
    with pytest.raises(ApplicationError, match="name"):
        bot_create(owner=bob, name="no spaces allowed")


def test_a_good_bot_passes_its_validation_game(alice) -> None:  # type: ignore[no-untyped-def]
    version = upload(bot_create(owner=alice, name="good"), alice, GOOD_BOT, validate=False)
    version = bot_version_validate(version_id=version.pk)
    assert version.status == BotVersion.Status.ACTIVE
    assert version.sandbox_tier in ("bubblewrap", "landlock")
    assert version.validated_at is not None


def test_a_crashing_bot_is_rejected_saying_why(alice) -> None:  # type: ignore[no-untyped-def]
    version = upload(bot_create(owner=alice, name="crashy"), alice, CRASHING_BOT, validate=False)
    version = bot_version_validate(version_id=version.pk)
    assert version.status == BotVersion.Status.REJECTED
    assert "exception" in version.rejection_reason and "boom in act" in version.rejection_reason
    assert "private debug line" in version.rejection_stderr


def test_a_bot_that_cannot_import_is_rejected_as_a_load_failure(alice) -> None:  # type: ignore[no-untyped-def]
    version = upload(bot_create(owner=alice, name="noimport"), alice, BROKEN_IMPORT, validate=False)
    version = bot_version_validate(version_id=version.pk)
    assert version.status == BotVersion.Status.REJECTED
    assert version.rejection_reason.startswith("validation game failed: load")
    assert "no_such_module_anywhere" in version.rejection_reason + version.rejection_stderr


def test_validating_twice_changes_nothing(alice) -> None:  # type: ignore[no-untyped-def]
    version = upload(bot_create(owner=alice, name="again"), alice, GOOD_BOT, validate=False)
    bot_version_validate(version_id=version.pk)
    validated_at = BotVersion.objects.get(pk=version.pk).validated_at
    assert bot_version_validate(version_id=version.pk).validated_at == validated_at


def test_only_an_active_version_can_be_retired(version_factory) -> None:  # type: ignore[no-untyped-def]
    version = bot_version_retire(version=version_factory())
    assert version.status == BotVersion.Status.RETIRED and version.retired_at is not None
    rejected = version_factory(status="rejected")
    assert bot_version_retire(version=rejected).status == BotVersion.Status.REJECTED


def test_builtin_bots_are_registered_once_for_the_system_user(db) -> None:  # type: ignore[no-untyped-def]
    first = builtin_bots_register()
    second = builtin_bots_register()
    assert [v.pk for v in first] == [v.pk for v in second]
    assert {v.bot.name for v in first} >= {"random"}
    assert all(v.status == BotVersion.Status.ACTIVE and v.bot.owner.username == settings.SYSTEM_USERNAME for v in first)


def test_a_builtin_whose_file_changed_is_its_next_version_and_the_old_one_retires(db) -> None:  # type: ignore[no-untyped-def]
    # Given the random bot registered from an older file
    owner = system_user()
    bot = bot_create(owner=owner, name="random", is_builtin=True)
    older = bot_version_activate(version=upload(bot, owner, GOOD_BOT, filename="random_bot.py", validate=False))
    # When the built-ins are registered from today's files
    (current,) = builtin_bots_register(names=("random",))
    # Then today's file is version 2, stored as uploads are, active at once; version 1 is retired
    code = (BUILTIN_DIR / "random_bot.py").read_bytes()
    assert (current.number, current.status, current.kind) == (2, BotVersion.Status.ACTIVE, BotVersion.Kind.FILE)
    assert version_code(current) == code and current.size == len(code)
    assert current.uploaded_by == owner and current.original_name == "random_bot.py"
    older.refresh_from_db()
    assert older.status == BotVersion.Status.RETIRED
