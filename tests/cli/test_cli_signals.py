"""The signals that end ``lineit`` (Ctrl-C, SIGTERM, SIGHUP when its terminal closes) stop the bots
and leave no temporary folder, wherever they land: during start-up, during the games, twice in a
row, with one job or with parallel worker processes (--jobs 2), whose bots and folders go too.
Each run is a real process sent real signals (tests/sandbox/test_temporary_folders.py has the
SIGKILL sweep)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lineit.botkit.scratch import start_time

SLOW_BOT = "import time\n\ndef act(observation):\n    time.sleep(0.05)\n    return observation['legal_actions'][0]\n"
LINEIT = [sys.executable, "-m", "lineit.cli"]
COMMANDS = {
    "match": ["match", "BOT", "random", "--games", "200"],
    "tournament": ["tournament", "BOT", "random", "greedy", "--games-per-pairing", "40"],
    "sprt": ["sprt", "BOT", "random", "--batch", "20", "--max-games", "400"],
}


def owned_by(temporary: Path, pid: int) -> list[str]:
    return sorted(path.name for path in temporary.iterdir() if f"-{pid}-" in path.name)


def lineit_folders(temporary: Path) -> dict[int, set[str]]:
    """The temporary folders of lineit's processes (``lineit-KIND-PID-...``): kinds by owner."""
    owners: dict[int, set[str]] = {}
    for path in temporary.iterdir():
        parts = path.name.split("-")
        if path.name.startswith("lineit-") and len(parts) > 3 and parts[2].isdigit():
            owners.setdefault(int(parts[2]), set()).add(parts[1])
    return owners


def start(
    tmp_path: Path, command: str = "match", jobs: int = 1, *, session: bool = False
) -> tuple[subprocess.Popen[str], Path]:
    """``lineit COMMAND --jobs JOBS`` of a slow bot in a subprocess whose temporary directory is
    ``tmp_path/tmp``, returned once its bots are staged and playing: in the process itself, or
    with several jobs in at least two worker processes. ``session``: in a session of its own,
    whose process group a terminal's Ctrl-C would reach."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    bot = tmp_path / "slow_bot.py"
    bot.write_text(SLOW_BOT)
    argv = [str(bot) if arg == "BOT" else arg for arg in COMMANDS[command]] + ["--jobs", str(jobs)]
    process = subprocess.Popen(
        [*LINEIT, *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temporary)},
        start_new_session=session,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        playing = [
            owner
            for owner, kinds in lineit_folders(temporary).items()
            if {"bot", "runtime"} <= kinds and (owner == process.pid) == (jobs == 1)
        ]
        if len(playing) >= min(jobs, 2):
            time.sleep(0.3)  # into the games
            return process, temporary
        time.sleep(0.02)
    process.kill()
    raise AssertionError(f"lineit never staged its bots: {process.communicate()[1]}")


def signal_mask(pid: int, field: str) -> int:
    """A mask of /proc/PID/status (SigCgt: caught, SigIgn: ignored); 0 once the process is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return 0
    return int(next(line for line in status.splitlines() if line.startswith(f"{field}:")).split()[1], 16)


def assert_stopped_cleanly(
    process: subprocess.Popen[str], temporary: Path, status: int, said: str, *, others: frozenset[int] = frozenset()
) -> None:
    """The expected status and one line, and nothing left: no folder of lineit or of its worker
    processes, no worker process (its bots die with it: bubblewrap's --die-with-parent).
    ``others``: the owners of folders that are not lineit's, which stay."""
    owners = set(lineit_folders(temporary)) - others
    _, err = process.communicate(timeout=60)
    assert process.returncode == status, err
    assert err.strip() == f"lineit: {said}", err  # one line, no traceback
    assert set(lineit_folders(temporary)) - others == set()
    assert [owner for owner in owners if start_time(owner) is not None] == []


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_sighup_stops_every_command_and_removes_its_folders(tmp_path: Path, command: str, jobs: int) -> None:
    """A closed terminal sends SIGHUP: its default action ended lineit with its folders left."""
    process, temporary = start(tmp_path, command, jobs)

    process.send_signal(signal.SIGHUP)

    assert_stopped_cleanly(process, temporary, 129, "hung up")


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize(
    ("number", "status", "said"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]
)
def test_signals_repeated_during_the_clean_up_are_ignored(
    tmp_path: Path, number: int, status: int, said: str, jobs: int
) -> None:
    """Ctrl-C pressed again and again, or SIGTERM sent until the process is gone: the first one
    stops the match, the others neither cut its clean-up short nor kill it on its way out."""
    process, temporary = start(tmp_path, jobs=jobs)

    while process.poll() is None:
        process.send_signal(number)
        time.sleep(0.002)

    assert_stopped_cleanly(process, temporary, status, said)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ctrl_c_at_the_terminal_reaches_the_workers_too_and_stops_them_all(tmp_path: Path, command: str) -> None:
    """A terminal's Ctrl-C is sent to its whole foreground process group: lineit and each of its
    worker processes get SIGINT at once. Each worker stops its own bots; lineit says it once."""
    process, temporary = start(tmp_path, command, 2, session=True)

    os.killpg(process.pid, signal.SIGINT)

    assert_stopped_cleanly(process, temporary, 130, "interrupted")


def test_a_folder_of_its_own_that_nothing_took_charge_of_is_removed_after_a_signal(tmp_path: Path) -> None:
    """Code interrupted between making a folder and taking charge of it leaves one behind (the
    sandbox's runtime was seen left so): lineit removes every folder of its own on the way out."""
    process, temporary = start(tmp_path)
    orphan = temporary / f"lineit-bot-{process.pid}-{start_time(process.pid)}-orphan"
    (orphan / "bot").mkdir(parents=True)
    (orphan / "bot" / "bot.py").write_text(SLOW_BOT)
    (orphan / "bot").chmod(0o500)
    unrelated = temporary / "lineit-bot-1-1-someone-elses"
    unrelated.mkdir()

    process.send_signal(signal.SIGTERM)

    assert_stopped_cleanly(process, temporary, 143, "terminated", others=frozenset({1}))
    assert unrelated.is_dir()


def test_the_signal_handlers_are_in_place_before_the_commands_are_imported(tmp_path: Path) -> None:
    """Importing the commands (the engine, the formats and their libraries) is most of the
    start-up: a Ctrl-C during it printed a KeyboardInterrupt traceback. main() now handles the
    signals first and imports the commands after."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, lineit.cli.main; print(sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "lineit.cli.match" not in loaded and "lineit.engine" not in loaded

    process = subprocess.Popen([*LINEIT, "rules"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    hup = 1 << (signal.SIGHUP - 1)
    while process.poll() is None:  # as soon as main() handles SIGHUP (Python itself never does)
        if signal_mask(process.pid, "SigCgt") & hup:
            process.send_signal(signal.SIGINT)
            break
    _, err = process.communicate(timeout=60)
    assert "Traceback" not in err
    assert (process.returncode, err.strip()) in {(130, "lineit: interrupted"), (0, "")}, err


def test_a_signal_ignored_when_lineit_started_stays_ignored(tmp_path: Path) -> None:
    """Under nohup, SIGHUP is ignored: a closed terminal must not stop the match then."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    process = subprocess.Popen(
        [*LINEIT, "match", "random", "random", "--games", "20", "--in-process"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temporary)},
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),  # what nohup does
    )
    hup = 1 << (signal.SIGHUP - 1)
    while process.poll() is None:  # once main() has looked at the signals
        if signal_mask(process.pid, "SigCgt") & (1 << (signal.SIGTERM - 1)):
            assert signal_mask(process.pid, "SigIgn") & hup
            process.send_signal(signal.SIGHUP)
            break
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "Sandbox tier: in-process" in out
