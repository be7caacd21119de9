"""Temporary folders: ``lineit match`` ended by SIGTERM cleans up as Ctrl-C does, and what a
process killed outright (SIGKILL) leaves behind is swept by the next process that starts the
sandbox, never the folders of a process still running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sandbox_helpers import WORKING_TIERS

from lineit.botkit.scratch import owner_is_gone, scratch_folder, sweep_stale_folders

SLOW_BOT = "import time\n\ndef act(observation):\n    time.sleep(0.05)\n    return observation['legal_actions'][0]\n"

pytestmark = pytest.mark.skipif(not WORKING_TIERS, reason="needs a working sandbox tier")


def start_match(tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    """A long ``lineit match`` of a single-file bot (staged in a folder of its own) with its
    temporary directory in ``tmp_path/tmp``, once its folders exist."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    bot = tmp_path / "slow_bot.py"
    bot.write_text(SLOW_BOT)
    environment = {**os.environ, "TMPDIR": str(temporary)}
    process = subprocess.Popen(
        [sys.executable, "-m", "lineit.cli", "match", str(bot), "random", "--games", "200", "--jobs", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        names = {path.name.split("-")[1] for path in owned_by(temporary, process.pid)}
        if {"bot", "runtime"} <= names:
            time.sleep(0.3)  # into the games
            return process, temporary
        time.sleep(0.05)
    process.kill()
    raise AssertionError(f"the match never staged its bot: {process.communicate()[1]}")


def owned_by(temporary: Path, pid: int) -> list[Path]:
    return sorted(path for path in temporary.iterdir() if path.name.startswith("lineit-") and f"-{pid}-" in path.name)


def test_sigterm_stops_the_match_and_removes_its_folders(tmp_path: Path) -> None:
    process, temporary = start_match(tmp_path)

    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)

    assert process.returncode == 143, err
    assert "lineit: terminated" in err and "Traceback" not in err
    assert owned_by(temporary, process.pid) == []


def test_what_a_killed_process_left_is_swept_by_the_next_one(tmp_path: Path) -> None:
    process, temporary = start_match(tmp_path)
    process.kill()
    process.wait(timeout=30)
    left = owned_by(temporary, process.pid)
    assert left and all(owner_is_gone(path.name) for path in left)
    with scratch_folder("bot") as mine:  # a live process's folder: kept
        alive = Path(mine)
        (alive / "file").write_text("in use")
        alive.rename(temporary / alive.name)
        alive = temporary / alive.name

        removed = sweep_stale_folders(temporary)

        assert sorted(removed) == left
        assert owned_by(temporary, process.pid) == []
        assert (alive / "file").read_text() == "in use"
        alive.rename(mine)


def test_the_next_lineit_run_sweeps_by_itself(tmp_path: Path) -> None:
    process, temporary = start_match(tmp_path)
    process.kill()
    process.wait(timeout=30)
    assert owned_by(temporary, process.pid)
    unrelated = temporary / "lineit-bot-notours"
    unrelated.mkdir()

    played = subprocess.run(
        [sys.executable, "-m", "lineit.cli", "match", "random", "random", "--games", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TMPDIR": str(temporary)},
    )

    assert played.returncode == 0, played.stderr
    assert owned_by(temporary, process.pid) == []
    assert unrelated.is_dir()
    assert [path for path in temporary.iterdir() if path.name.startswith("lineit-")] == [unrelated]


@pytest.mark.django_db(transaction=True)
def test_a_worker_sweeps_at_start_up_and_names_its_tier(tmp_path: Path) -> None:
    from celery_processes import wait_for, worker

    process, temporary = start_match(tmp_path)
    process.kill()
    process.wait(timeout=30)
    left = owned_by(temporary, process.pid)
    assert left
    log = tmp_path / "worker.log"

    started = worker(log, environment={"TMPDIR": str(temporary)})
    try:
        wait_for(lambda: b"sandbox tier" in log.read_bytes(), "the worker to name its sandbox tier")
    finally:
        started.stop()

    assert owned_by(temporary, process.pid) == []
    text = log.read_text()
    assert f"bots run in the {WORKING_TIERS[0]} sandbox tier" in text
    assert f"removed {len(left)} temporary sandbox folders" in text
