"""The names shown beside ids: a version's label (its bot's name and its number) and a user's
name, each read from the database at most once per API_RESPONSE_CACHE_SECONDS in each process.

A version's number and bot never change, and a name changes only when a bot or a user is renamed
in the admin; without this, every list would ask for the same few hundred names on every request
(a third of a match list's CPU). A rename shows within API_RESPONSE_CACHE_SECONDS, the bound
every cached response has already (0: names are read afresh every time). A web request reads
outside a transaction; a name read inside one is not kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Generic, NamedTuple, TypeVar

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection

from bots.models import BotVersion, version_label

T = TypeVar("T")
MOST = 100_000  # names kept at most (then all are read again): a bound, never reached in practice


class Label(NamedTuple):
    number: int
    bot: int
    bot_name: str

    @property
    def label(self) -> str:
        return version_label(self.bot_name, self.number)


class _Names(Generic[T]):
    """Values by id, read in one query for the ids not kept (or kept too long)."""

    def __init__(self, read: Callable[[set[int]], dict[int, T]]) -> None:
        self.read = read
        self.kept: dict[int, tuple[float, T]] = {}

    def __call__(self, ids: Iterable[int]) -> dict[int, T]:
        seconds = settings.API_RESPONSE_CACHE_SECONDS
        # Inside a transaction a row may not be committed, and its id may come back after a
        # rollback (SQLite gives it again): only names read outside one are kept.
        if not seconds or connection.in_atomic_block:
            wanted = set(ids)
            return self.read(wanted) if wanted else {}
        now = time.monotonic()
        found: dict[int, T] = {}
        missing: set[int] = set()
        for pk in ids:
            kept = self.kept.get(pk)
            if kept is not None and kept[0] > now:
                found[pk] = kept[1]
            else:
                missing.add(pk)
        if missing:
            read = self.read(missing)
            found.update(read)
            if len(self.kept) > MOST:
                self.kept = {}
            until = now + seconds
            self.kept.update((pk, (until, value)) for pk, value in read.items())
        return found


def _read_labels(ids: set[int]) -> dict[int, Label]:
    rows = BotVersion.objects.filter(pk__in=ids).order_by().values_list("pk", "number", "bot_id", "bot__name")
    return {pk: Label(number, bot, name) for pk, number, bot, name in rows}


def _read_usernames(ids: set[int]) -> dict[int, str]:
    return dict(get_user_model().objects.filter(pk__in=ids).order_by().values_list("pk", "username"))


_labels = _Names(_read_labels)
_usernames = _Names(_read_usernames)


def version_labels(ids: Iterable[int]) -> dict[int, Label]:
    """Each of these versions' number, bot and bot name."""
    return _labels(ids)


def usernames(ids: Iterable[int]) -> dict[int, str]:
    """Each of these users' name."""
    return _usernames(ids)
