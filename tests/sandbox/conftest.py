"""Fixtures of the sandbox suite: the tiers to run against, and a check after every test that no
process was left behind."""

from __future__ import annotations

import os
import time

import pytest
from sandbox_helpers import WORKING_TIERS, descendants, sandbox_processes


@pytest.fixture(autouse=True)
def nothing_left_behind():
    yield
    assert descendants(os.getpid()) == []
    # The init of a killed bubblewrap namespace dies by its parent-death signal, a moment after
    # the bwrap the test waited for: give the kernel that moment, then nothing may remain.
    deadline = time.monotonic() + 5
    while sandbox_processes() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sandbox_processes() == []


@pytest.fixture(params=WORKING_TIERS)
def tier(request: pytest.FixtureRequest) -> str:
    return request.param
