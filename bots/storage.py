"""The "bots" storage (settings.STORAGES["bots"]): where uploaded bot code is kept.

By default (BOT_STORAGE=local) files under MEDIA_ROOT, as always, each also copied into the
database (``StoredCode``): a worker on another host has only the database and the broker, so it
reads the copy where its own MEDIA_ROOT lacks the file. With BOT_STORAGE=s3 an S3-compatible
bucket (django-storages) holds the code instead, and every host reads it there. Either way the
platform only calls the storage API (save, open, exists), and a worker keeps what it read in its
cache by content hash (bots/code_cache.py), checking the hash before every match.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.files.base import ContentFile, File
from django.core.files.storage import FileSystemStorage, Storage, storages
from django.db.models import Model

from lineit.botkit.safe_paths import write_file


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
        target = Path(self.path(name))
        target.parent.mkdir(parents=True, exist_ok=True)
        write_file(target, data, mode=0o644)  # a link at the name is replaced, never written through
        stored_code = _stored_code()
        stored_code.objects.bulk_create(
            [stored_code(name=name, content=data)],
            update_conflicts=True,
            unique_fields=["name"],
            update_fields=["content"],
        )
        return name

    def _open(self, name: str, mode: str = "rb") -> File:
        if super().exists(name) or "w" in mode or "a" in mode:  # this host's file first
            return super()._open(name, mode)
        return ContentFile(self._stored(name), name=name)

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
    def _stored(name: str) -> bytes:
        content = _stored_code().objects.filter(name=name).values_list("content", flat=True).first()
        if content is None:
            raise FileNotFoundError(f"{name}: neither in the bot storage's folder on this host nor in the database")
        return bytes(content)
