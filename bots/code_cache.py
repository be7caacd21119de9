"""A worker's copies of bot code, by content hash (BOT_CODE_CACHE_DIR/<sha256>/bot.<kind>).

A worker on another host has no MEDIA_ROOT of the web's: it reads each version's code from the
bot storage (bots/storage.py) the first time it plays it and keeps it here. The copy is written
whole and renamed into place (two worker processes may fill it at once), and its sha256 is checked
before every match: a copy that was altered or cut short is fetched again; stored bytes with
another hash than the version's stop the match as a platform failure (BotCodeUnavailable: the
match goes back to the queue, and no bot is blamed). The cache's folders must be this user's and
writable by no one else, every folder above them root's or this user's (or sticky), and a link at a
copy's name is never followed (lineit/botkit/safe_paths.py): a cache another user can write in
could swap the code between its check and the match.

Every read of a version's code goes through here, checked against the version's sha256: the
worker's cache (``version_source``, for matches and validations) and the code itself
(``version_code``, for the owner's download on the API and the pages). No other bytes are ever
served or run: the storage gives the intact copy when it has one (bots/storage.py), and bytes that
are still not the version's are refused, logged as an error and counted
(``lineit_bot_code_damaged_total{outcome="unrecoverable"}``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import re
import shutil
import stat
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from django.conf import settings

from lineit.botkit.referee import PlatformFailure
from lineit.botkit.safe_paths import UnsafePath, read_regular_file, secure_folder, write_file
from lineit.botkit.sources import BUILTIN_DIR, BUILTIN_NAMES, BotSource
from lineit.builtin.versions import builtin_version_hash

from .storage import DamagedCode, bot_code_storage, damaged_code_counted

if TYPE_CHECKING:  # it only names their type; the models import nothing of the cache
    from .models import BotVersion

logger = logging.getLogger(__name__)

SHA256 = re.compile(r"[0-9a-f]{64}")
# The most a stored file is read: uploads are far smaller (BOT_UPLOAD_MAX_BYTES); this only stops
# a wrong object in the bucket from filling the worker's memory.
MAX_READ_BYTES = 64 * 1024 * 1024


class BotCodeUnavailable(PlatformFailure):
    """The platform could not get a version's code: not in the bot storage, the storage did not
    answer, or it holds bytes of another hash. Never the bot's fault."""


def version_source(version: BotVersion) -> BotSource:
    """The version's code as a file on this host, checked now: a built-in bot's own file
    when this host ships that very version, otherwise this worker's cached copy of the
    stored code, fetched from the bot storage if missing or altered. Raises BotCodeUnavailable,
    a platform failure (never the bot's), when the storage does not hold the code or holds other
    bytes."""
    if version.bot.is_builtin and (shipped := shipped_builtin_path(version.bot.name, version.sha256)) is not None:
        return BotSource(name=version.label, path=shipped, builtin=False)
    path = bot_code_path(name=version.path, sha256=version.sha256, label=version.label, builtin=version.bot.is_builtin)
    return BotSource(name=version.label, path=path, builtin=False)


def shipped_builtin_path(name: str, sha256: str) -> Path | None:
    """The built-in bot's own file in this host's code, when it is that very version (the same
    version hash: its file and the built-in modules it borrows); None otherwise."""
    path = BUILTIN_DIR / f"{name}_bot.py"
    if name not in BUILTIN_NAMES or not path.is_file():
        return None
    return path if _shipped_hash(path, _builtin_files_signature()) == sha256 else None


def _builtin_files_signature() -> tuple[tuple[str, int, int], ...]:
    """The built-in modules as they are on disk now (name, size, modification time): hashing
    them again only when one changed takes a match's call from about 29 ms (search) to 0.1 ms."""
    signature = []
    for module in sorted(BUILTIN_DIR.glob("*.py")):
        status = module.stat()
        signature.append((module.name, status.st_size, status.st_mtime_ns))
    return tuple(signature)


@functools.lru_cache(maxsize=64)
def _shipped_hash(path: Path, signature: tuple[tuple[str, int, int], ...]) -> str:
    return builtin_version_hash(path)


def version_code(version: BotVersion) -> bytes:
    """The version's code as it was uploaded (or registered, for a built-in bot), read from the
    bot storage and checked against the version's sha256 (a built-in bot's file whose version hash
    covers the modules it borrows: equal to this host's file of that very version). Raises
    BotCodeUnavailable when the storage does not give it, or gives other bytes."""
    content = _fetch(version.path, version.label)
    if hashlib.sha256(content).hexdigest() == version.sha256:
        return content
    if version.bot.is_builtin:
        shipped = shipped_builtin_path(version.bot.name, version.sha256)
        if shipped is not None and shipped.read_bytes() == content:
            return content
    raise _other_bytes(version.path, version.label, content, version.sha256, builtin=version.bot.is_builtin)


def bot_code_path(*, name: str, sha256: str, label: str, builtin: bool = False) -> Path:
    """This worker's checked copy of the stored file ``name`` whose content hash is ``sha256``,
    fetched from the bot storage when missing or altered. Raises BotCodeUnavailable."""
    if not SHA256.fullmatch(sha256):
        raise BotCodeUnavailable(f"{label}: its sha256 {sha256!r} is not a sha256")
    suffix = PurePosixPath(name).suffix
    cached = Path(settings.BOT_CODE_CACHE_DIR) / sha256 / f"bot{suffix}"
    if _holds(cached, sha256):
        return cached
    content = _fetch(name, label)
    if hashlib.sha256(content).hexdigest() != sha256:
        raise _other_bytes(name, label, content, sha256, builtin=builtin)
    _write(cached, content)
    return cached


def _other_bytes(name: str, label: str, content: bytes, sha256: str, *, builtin: bool) -> BotCodeUnavailable:
    """The refusal of stored bytes that are not the version's code (logged, and counted when the
    storage holds damaged code rather than another host's built-in)."""
    if builtin:
        return BotCodeUnavailable(
            f"{label}: this host ships another version of the built-in bot (its file or a built-in "
            "module it borrows differs), and the stored file alone is not that version; "
            "a worker running the code that registered it can play it"
        )
    found = hashlib.sha256(content).hexdigest()
    logger.error(
        "bot code: the bot storage holds other bytes than the code of %s under %s (sha256 %s..., expected "
        "%s...); refused, never served or run",
        label,
        name,
        found[:12],
        sha256[:12],
    )
    damaged_code_counted("unrecoverable")
    return BotCodeUnavailable(
        f"{label}: the bot storage holds other bytes than the version's code under {name} "
        f"(sha256 {found[:12]}..., expected {sha256[:12]}...)"
    )


def _holds(cached: Path, sha256: str) -> bool:
    """Whether the copy is there with the right content; an altered one is removed. The cache's
    folders are checked first (only this user may change them: lineit/botkit/safe_paths.py), and
    the copy is read without following a link at its name."""
    try:
        secure_folder(cached.parent, mode=0o755)
        content = read_regular_file(cached, limit=MAX_READ_BYTES)
    except FileNotFoundError:
        return False
    except UnsafePath as error:
        raise BotCodeUnavailable(f"the bot code cache (BOT_CODE_CACHE_DIR) is not safe to use: {error}") from None
    except OSError as error:  # a link at the copy's name (ELOOP), a folder, an unreadable file
        logger.warning("bot code cache: %s unreadable (%s); fetching it again", cached, error)
        _remove(cached)
        return False
    if hashlib.sha256(content).hexdigest() == sha256:
        return True
    logger.warning("bot code cache: %s does not match its sha256; fetching it again", cached)
    _remove(cached)
    return False


def _remove(cached: Path) -> None:
    """Remove what stands at the copy's name (a link itself, never what it points to)."""
    with contextlib.suppress(OSError):
        if stat.S_ISDIR(cached.lstat().st_mode):
            shutil.rmtree(cached)
        else:
            cached.unlink()


def _fetch(name: str, label: str) -> bytes:
    try:
        with bot_code_storage().open(name, "rb") as stored:
            return bytes(stored.read(MAX_READ_BYTES + 1))
    except FileNotFoundError:
        raise BotCodeUnavailable(f"{label}: its code ({name}) is not in the bot storage") from None
    except DamagedCode as error:  # logged and counted by the storage
        raise BotCodeUnavailable(f"{label}: {error}") from None
    except Exception as error:  # S3 outages and refusals, a database that did not answer
        raise BotCodeUnavailable(
            f"{label}: the bot storage did not give its code ({name}): {type(error).__name__}: {error}"
        ) from None


def _write(cached: Path, content: bytes) -> None:
    """Whole, then renamed into place, so a reader (another worker process) never sees a part and
    whatever stood at the name is replaced, not written through."""
    try:
        secure_folder(cached.parent, mode=0o755)
        write_file(cached, content, mode=0o644)
    except OSError as error:
        raise BotCodeUnavailable(
            f"cannot keep bot code in BOT_CODE_CACHE_DIR ({cached.parent}): {error.strerror or error}"
        ) from None
