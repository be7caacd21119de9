"""A worker reads bot code through the bot storage and keeps it in its cache by content hash,
checked before every match: an altered copy is fetched again, stored bytes of another hash or a
missing object stop the match as a platform failure (the match goes back to the queue, no bot is
blamed). The default storage keeps each file under MEDIA_ROOT and a copy in the database, which a
host without the file reads."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.test import override_settings

import bots.services
from bots.code_cache import BotCodeUnavailable, version_code, version_source
from bots.models import BotVersion, StoredCode
from bots.services import bot_create, bot_version_upload, bot_version_validate, builtin_bots_register
from bots.storage import bot_code_storage
from lineit.botkit.limits import Limits
from lineit.botkit.referee import PlatformFailure
from lineit.botkit.sources import BUILTIN_DIR
from tournaments.models import Game, GameFailure
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule

pytestmark = pytest.mark.django_db

CODE = b"def act(observation):\n    return observation['legal_actions'][0]\n"
QUICK = Limits(move_seconds=0.05, bank_seconds=1, move_timeout_seconds=0.5, startup_seconds=5)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """An empty cache folder for this test: the worker has read nothing yet."""
    folder = tmp_path / "cache"
    with override_settings(BOT_CODE_CACHE_DIR=folder):
        yield folder


@pytest.fixture
def uploaded(alice, cache: Path) -> BotVersion:  # type: ignore[no-untyped-def]
    bot = bot_create(owner=alice, name="alices-cached")
    # One line that no other test stores, so its storage name is this test's alone
    code = CODE + f"# {cache}\n".encode()
    version = bot_version_upload(bot=bot, uploaded_by=alice, filename="bot.py", content=code, validate=False)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.ACTIVE)
    version.refresh_from_db()
    return version


def local_file(version: BotVersion) -> Path:
    return Path(settings.MEDIA_ROOT) / version.path


def test_the_first_use_fills_the_cache_from_the_storage(uploaded: BotVersion, cache: Path) -> None:
    source = version_source(uploaded)
    assert source.path == cache / uploaded.sha256 / "bot.py"
    assert source.path.read_bytes() == version_code(uploaded)
    assert hashlib.sha256(source.path.read_bytes()).hexdigest() == uploaded.sha256
    assert not [path for path in source.path.parent.iterdir() if path.name != "bot.py"]  # no temporary left


def test_a_package_is_cached_as_the_zip_it_was(alice, cache: Path) -> None:  # type: ignore[no-untyped-def]
    package = io.BytesIO()
    with zipfile.ZipFile(package, "w") as archive:
        archive.writestr("bot.py", "from helper import first\ndef act(observation):\n    return first(observation)\n")
        archive.writestr(
            "helper.py", f"def first(observation):  # {cache}\n    return observation['legal_actions'][0]\n"
        )
    bot = bot_create(owner=alice, name="alices-package")
    version = bot_version_upload(
        bot=bot, uploaded_by=alice, filename="bot.zip", content=package.getvalue(), validate=False
    )
    source = version_source(version)
    assert source.is_zip and source.path == cache / version.sha256 / "bot.zip"
    assert source.path.read_bytes() == package.getvalue()


def test_a_host_without_the_file_reads_the_database_copy(uploaded: BotVersion, cache: Path) -> None:
    # Given a worker on another host: its MEDIA_ROOT does not hold the file
    local_file(uploaded).unlink()
    # Then the code comes from the database's copy, through the same storage
    assert version_source(uploaded).path.read_bytes() == bytes(StoredCode.objects.get(name=uploaded.path).content)
    assert bot_code_storage().exists(uploaded.path)


def test_an_altered_cache_file_is_fetched_again(uploaded: BotVersion, caplog: pytest.LogCaptureFixture) -> None:
    cached = version_source(uploaded).path
    original = cached.read_bytes()
    cached.chmod(0o644)
    cached.write_bytes(b"import os\ndef act(observation):\n    os.system('evil')\n")
    assert version_source(uploaded).path == cached
    assert cached.read_bytes() == original
    assert "does not match its sha256; fetching it again" in caplog.text
    # A copy cut short is fetched again too
    cached.write_bytes(original[:10])
    assert version_source(uploaded).path.read_bytes() == original


def test_stored_bytes_of_another_hash_are_a_platform_failure(uploaded: BotVersion, cache: Path) -> None:
    # Given the storage's copies changed behind the platform's back (and nothing cached yet)
    StoredCode.objects.filter(name=uploaded.path).update(content=b"def act(o):\n    return 'x'\n")
    local_file(uploaded).unlink()
    # Then the version cannot be played, and the failure is the platform's, saying why
    with pytest.raises(BotCodeUnavailable, match="holds other bytes than the version's code") as raised:
        version_source(uploaded)
    assert isinstance(raised.value, PlatformFailure)
    assert not (cache / uploaded.sha256 / "bot.py").exists()  # nothing wrong is cached


def test_a_missing_storage_object_sends_the_match_back_and_blames_no_bot(  # type: ignore[no-untyped-def]
    uploaded: BotVersion, version_factory
) -> None:
    match = match_schedule(versions=[uploaded, version_factory()], games=2, seed=9, limits=QUICK)
    code = version_code(uploaded)
    bot_code_storage().delete(uploaded.path)
    with pytest.raises(BotCodeUnavailable, match="is not in the bot storage"):
        match_execute(match_id=match.pk, worker="w")
    match.refresh_from_db()
    assert match.status == "queued" and match.attempts == 1  # released: the task retries it
    assert "is not in the bot storage" in match.error
    assert not Game.objects.filter(match=match).exists() and not GameFailure.objects.filter(match=match).exists()
    # Once the code is stored again, the next attempt plays the match to the end
    bot_code_storage().save(uploaded.path, ContentFile(code))
    assert match_execute(match_id=match.pk, worker="w").status == "finished"  # type: ignore[union-attr]
    assert Game.objects.filter(match=match).count() == 2 and not GameFailure.objects.filter(match=match).exists()


def test_a_validation_without_the_code_stays_validating(alice, cache: Path) -> None:  # type: ignore[no-untyped-def]
    bot = bot_create(owner=alice, name="alices-unvalidated")
    code = CODE + f"# validating {cache}\n".encode()
    version = bot_version_upload(bot=bot, uploaded_by=alice, filename="bot.py", content=code, validate=False)
    bot_code_storage().delete(version.path)
    with pytest.raises(BotCodeUnavailable, match="is not in the bot storage"):
        bot_version_validate(version_id=version.pk)  # the task retries a PlatformFailure
    version.refresh_from_db()
    assert (version.status, version.rejection_reason) == (BotVersion.Status.VALIDATING, "")


def test_a_built_in_bot_plays_from_the_code_this_host_ships(db, cache: Path) -> None:  # type: ignore[no-untyped-def]
    (version,) = builtin_bots_register(names=("search",))
    assert version_source(version).path == BUILTIN_DIR / "search_bot.py"
    assert not cache.exists()  # nothing fetched


def test_a_built_in_version_this_host_does_not_ship_is_a_platform_failure(  # type: ignore[no-untyped-def]
    db, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a search version registered from other built-in code (its heuristic changed)
    other = tmp_path / "builtin"
    shutil.copytree(BUILTIN_DIR, other, ignore=shutil.ignore_patterns("__pycache__"))
    heuristic = other / "heuristic_bot.py"
    heuristic.write_text(heuristic.read_text().replace("HAND_FIT_VALUE = 0.7", "HAND_FIT_VALUE = 0.8"))
    monkeypatch.setattr(bots.services, "BUILTIN_DIR", other)
    (version,) = builtin_bots_register(names=("search",))
    # Then this host cannot play it as it was, and says so (the stored file alone is not that version)
    with pytest.raises(BotCodeUnavailable, match="ships another version of the built-in bot"):
        version_source(version)


# --- Another user's links and folders in the cache (lineit/botkit/safe_paths.py) -------------------

NOBODY = 65534


def test_a_link_at_a_cached_copy_s_name_is_replaced_by_a_copy_of_ours(uploaded: BotVersion, cache: Path) -> None:
    # Their file holds the right bytes now; through the link they could change them after the check.
    theirs = cache.parent / "theirs.py"
    theirs.write_bytes(version_code(uploaded))
    os.lchown(theirs, NOBODY, NOBODY)
    planted = cache / uploaded.sha256 / "bot.py"
    planted.parent.mkdir(parents=True)
    planted.symlink_to(theirs)
    os.lchown(planted, NOBODY, NOBODY)
    source = version_source(uploaded)
    assert source.path == planted
    status = planted.lstat()
    assert stat.S_ISREG(status.st_mode) and status.st_uid == os.geteuid()
    assert planted.read_bytes() == version_code(uploaded) and theirs.lstat().st_uid == NOBODY


@pytest.mark.parametrize("planted", ["cache link", "version folder", "open cache"])
def test_a_cache_another_user_can_change_is_not_used(uploaded: BotVersion, cache: Path, planted: str) -> None:
    elsewhere = cache.parent / "elsewhere"
    elsewhere.mkdir()
    if planted == "cache link":
        cache.symlink_to(elsewhere, target_is_directory=True)
        os.lchown(cache, NOBODY, NOBODY)
    elif planted == "version folder":
        (cache / uploaded.sha256).mkdir(parents=True)
        os.lchown(cache / uploaded.sha256, NOBODY, NOBODY)
    else:
        cache.mkdir()
        cache.chmod(0o777)
    with pytest.raises(BotCodeUnavailable, match="not safe to use"):
        version_source(uploaded)
    assert list(elsewhere.iterdir()) == []
