"""Shared fixtures for the Django apps: the personas alice, bob and staff, and factories.

Database tests run on the real PostgreSQL (a test database of its own, see
lineit_platform/testing.py); nothing here mocks PostgreSQL, Redis or Celery.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import factory
import pytest

BUILTIN = Path(__file__).resolve().parent.parent / "lineit" / "builtin"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "auth.User"
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.org")


class BotFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "bots.Bot"

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"bot-{n}")


def _store_code(content: bytes, kind: str = "py") -> tuple[str, str]:
    from bots.services import bot_code_store

    sha256 = hashlib.sha256(content).hexdigest()
    return bot_code_store(content=content, sha256=sha256, kind=kind), sha256


class BotVersionFactory(factory.django.DjangoModelFactory):
    """An active version whose code is a copy of the built-in random bot (or ``code``)."""

    class Meta:
        model = "bots.BotVersion"

    class Params:
        code = (BUILTIN / "random_bot.py").read_bytes()

    bot = factory.SubFactory(BotFactory)
    number = factory.Sequence(lambda n: n + 1)
    kind = "py"
    original_name = "bot.py"
    status = "active"
    uploaded_by = factory.LazyAttribute(lambda version: version.bot.owner)
    size = factory.LazyAttribute(lambda version: len(version.code))

    @factory.lazy_attribute
    def path(self) -> str:
        return _store_code(self.code)[0]

    @factory.lazy_attribute
    def sha256(self) -> str:
        return hashlib.sha256(self.code).hexdigest()


@pytest.fixture
def alice(db: Any) -> Any:
    return UserFactory(username="alice")


@pytest.fixture
def bob(db: Any) -> Any:
    return UserFactory(username="bob")


@pytest.fixture
def staff(db: Any) -> Any:
    return UserFactory(username="staff", is_staff=True, is_superuser=True)


@pytest.fixture
def version_factory(db: Any) -> type[BotVersionFactory]:
    return BotVersionFactory


@pytest.fixture
def bot_factory(db: Any) -> type[BotFactory]:
    return BotFactory


def bot_code(name: str) -> bytes:
    return (BUILTIN / f"{name}_bot.py").read_bytes()


@pytest.fixture
def broker() -> Any:
    """The test run's Redis broker database, emptied before and after (no stale messages)."""
    import redis
    from django.conf import settings

    connection = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    connection.flushdb()
    yield connection
    connection.flushdb()
