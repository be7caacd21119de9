"""Fixtures of the API tests: a signed-in client per persona (real tokens, over HTTP headers), and
matches finished for real: played by the engine with in-process players, then recorded by the
services, so replays, failures and ratings are the platform's own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from api_helpers import client_for, play
from django.core.cache import caches
from rest_framework.test import APIClient

from tournaments.models import Match


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    caches["api"].clear()
    yield
    caches["api"].clear()


@pytest.fixture
def as_user() -> Callable[[Any | None], APIClient]:
    return client_for


@pytest.fixture
def anonymous(db: Any) -> APIClient:
    return APIClient()


@pytest.fixture
def play_match() -> Callable[..., Match]:
    return play
