"""The "bots" storage (settings.STORAGES["bots"]): where uploaded bot code is kept.

By default (BOT_STORAGE=local) files under MEDIA_ROOT, as always, each also copied into the
database (``StoredCode``, with the sha256 of its bytes): a worker on another host has only the
database and the broker, so it reads the copy where its own MEDIA_ROOT lacks the file. A file
under MEDIA_ROOT whose bytes are not those any more (a disk error, a hand that appended to it) is
never read as the code: opening it checks its sha256 against the copy's, serves the copy instead,
writes the file again from it and says so (an error in the log, the metric
``lineit_bot_code_damaged_total{outcome="repaired"}``). With BOT_STORAGE=s3 an S3-compatible
bucket (django-storages) holds the code instead, and every host reads it there. Either way the
platform only calls the storage API (save, open, exists), and every read of a version's code goes
through bots/code_cache.py, which checks the bytes against the version's sha256 and refuses any
other (a worker also keeps what it read in its cache by content hash, checked before every match).
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.files.base import ContentFile, File
from django.core.files.storage import FileSystemStorage, Storage, storages
from django.db import transaction
from django.db.models import Model

from lineit.botkit.safe_paths import write_file
from lineit_platform.metrics import BOT_CODE_DAMAGED, tallies_add

logger = logging.getLogger(__name__)


class DamagedCode(OSError):
    """Stored bytes that are not the code any more, and no intact copy to read instead."""


def bot_code_storage() -> Storage:
    return storages["bots"]


def _stored_code() -> type[Model]:
    """The model of the database's copies, bots.StoredCode, by name: the models reach this module
    (code_cache.version_source), so it does not import them."""
    return apps.get_model("bots", "StoredCode")


class SharedLocalStorage(FileSystemStorage):
    """Files under ``location`` (MEDIA_ROOT), and a copy of each in the database, read when the
    file is not on this host. Names are content-addressed, so saving one again overwrites it with
    the same bytes (and refreshes the copy)."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("allow_overwrite", True)
        super().__init__(**options)

    def _save(self, name: str, content: File) -> str:
        """Written whole, then renamed into place: a reader never sees half a file."""
        data = b"".join(content.chunks())
        self._write(name, data)
        stored_code = _stored_code()
        stored_code.objects.bulk_create(
            [stored_code(name=name, content=data, sha256=hashlib.sha256(data).hexdigest())],
            update_conflicts=True,
            unique_fields=["name"],
            update_fields=["content", "sha256"],
        )
        return name

    def _write(self, name: str, data: bytes) -> None:
        target = Path(self.path(name))
        target.parent.mkdir(parents=True, exist_ok=True)
        write_file(target, data, mode=0o644)  # a link at the name is replaced, never written through

    def _open(self, name: str, mode: str = "rb") -> File:
        """This host's file when its bytes are the stored code's (its sha256 checked against the
        database's copy), else the copy: a damaged file is written again from it."""
        if "w" in mode or "a" in mode:
            return super()._open(name, mode)
        expected = self._digest(name)
        local = self._local_bytes(name)
        if local is not None and (expected is None or hashlib.sha256(local).hexdigest() == expected):
            return ContentFile(local, name=name)
        stored = self._stored(name)
        found = hashlib.sha256(stored).hexdigest()
        if expected and found != expected:
            damaged_code_counted("unrecoverable")
            logger.error(
                "bot storage: %s is damaged in the database too (sha256 %s..., expected %s...); not served",
                name,
                found[:12],
                expected[:12],
            )
            raise DamagedCode(
                f"the bot storage holds other bytes than the version's code under {name} "
                f"(sha256 {found[:12]}..., expected {expected[:12]}...), and no intact copy"
            )
        if local is not None:
            self._repair(name, local, stored)
        return ContentFile(stored, name=name)

    def _local_bytes(self, name: str) -> bytes | None:
        try:
            return Path(self.path(name)).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            logger.error("bot storage: %s is unreadable on this host (%s); reading the database's copy", name, error)
            return None

    def _repair(self, name: str, damaged: bytes, intact: bytes) -> None:
        try:
            self._write(name, intact)
        except OSError as error:
            damaged_code_counted("unrepaired")
            logger.error(
                "bot storage: %s under MEDIA_ROOT is damaged (%d bytes, %d expected); served from the "
                "database's copy, but it could not be written again: %s",
                name,
                len(damaged),
                len(intact),
                error,
            )
            return
        damaged_code_counted("repaired")
        logger.error(
            "bot storage: %s under MEDIA_ROOT was damaged (%d bytes, sha256 %s..., %d expected); served "
            "from the database's copy and written again from it",
            name,
            len(damaged),
            hashlib.sha256(damaged).hexdigest()[:12],
            len(intact),
        )

    def exists(self, name: str) -> bool:
        """Whether the database holds the shared copy, which every host reads: a file left in
        the folder without it (from before the copies, or by another database) is saved again."""
        return _stored_code().objects.filter(name=name).exists()

    def size(self, name: str) -> int:
        return super().size(name) if super().exists(name) else len(self._stored(name))

    def delete(self, name: str) -> None:
        super().delete(name)
        _stored_code().objects.filter(name=name).delete()

    @staticmethod
    def _digest(name: str) -> str | None:
        """The sha256 the database's copy was saved with (None: no copy, or saved before it was kept)."""
        found = _stored_code().objects.filter(name=name).values_list("sha256", flat=True).first()
        return found or None

    @staticmethod
    def _stored(name: str) -> bytes:
        content = _stored_code().objects.filter(name=name).values_list("content", flat=True).first()
        if content is None:
            raise FileNotFoundError(f"{name}: neither in the bot storage's folder on this host nor in the database")
        return bytes(content)


def damaged_code_counted(outcome: str) -> None:
    """Count a damaged copy of bot code for /metrics (lineit_bot_code_damaged_total{outcome}); a
    count that cannot be written (the database is down) is only logged."""
    try:
        with transaction.atomic():
            tallies_add({(BOT_CODE_DAMAGED, outcome): 1.0})
    except Exception as error:  # the database that did not answer: the log line says it anyway
        logger.warning("bot storage: the damaged-code metric was not counted: %s", error)
