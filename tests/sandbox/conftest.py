"""Fixtures of the sandbox suite: the tiers to run against, and a check after every test that no
process was left behind."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from sandbox_helpers import WORKING_TIERS, descendants, sandbox_processes


def _resource_tracker(pid: int) -> bool:
    """multiprocessing's resource tracker: started by the first spawn-context pool of this process
    (lineit's --jobs workers, when a test calls the command line in-process), it lives as long as
    the process does, by design; it runs no bot."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"from multiprocessing.resource_tracker import main" in command


@pytest.fixture(autouse=True)
def nothing_left_behind():
    yield
    assert [pid for pid in descendants(os.getpid()) if not _resource_tracker(pid)] == []
    # The init of a killed bubblewrap namespace dies by its parent-death signal, a moment after
    # the bwrap the test waited for: give the kernel that moment, then nothing may remain.
    deadline = time.monotonic() + 5
    while sandbox_processes() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sandbox_processes() == []


@pytest.fixture(params=WORKING_TIERS)
def tier(request: pytest.FixtureRequest) -> str:
    return request.param
