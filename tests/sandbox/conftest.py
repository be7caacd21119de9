"""Fixtures of the sandbox suite: the tiers to run against, and a check after every test that no
process was left behind."""

from __future__ import annotations

import os

import pytest
from sandbox_helpers import WORKING_TIERS, descendants, sandbox_processes


@pytest.fixture(autouse=True)
def nothing_left_behind():
    yield
    assert descendants(os.getpid()) == []
    assert sandbox_processes() == []


@pytest.fixture(params=WORKING_TIERS)
def tier(request: pytest.FixtureRequest) -> str:
    return request.param
