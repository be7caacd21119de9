"""SandboxedPlayer on its own: freezing, stderr, CPU limit, start-up failures, zip bots, and
everything dying with the worker."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings
import zipfile
from pathlib import Path

import pytest
from sandbox_helpers import hostile_bot

from lineit.botkit.failures import BotFailure
from lineit.botkit.limits import Limits
from lineit.botkit.sources import BotSource, builtin_source
from lineit.engine import new_game
from lineit.sandbox import SandboxedPlayer, TurnGate, launch, runtime
from lineit.sandbox.launch import STDERR_CAP_BYTES

LIMITS = Limits(move_seconds=0.5, move_timeout_seconds=2, startup_seconds=5)
REPO = Path(__file__).resolve().parents[2]


def observation() -> dict:
    return new_game(2, seed=3).observation(0)


def thread_states(pid: int) -> tuple[set[str], int]:
    """The states of every thread of ``pid`` and the CPU ticks they used in all."""
    states, ticks = set(), 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        states.add(fields[0])
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return states, ticks


def assert_frozen(pid: int) -> None:
    """Every thread stops (SIGSTOP is delivered asynchronously) and then uses no CPU at all."""
    end = time.monotonic() + 10
    while thread_states(pid)[0] != {"T"} and time.monotonic() < end:
        time.sleep(0.01)
    states, before = thread_states(pid)
    assert states == {"T"}
    time.sleep(0.3)  # a spinning thread would use about 30 ticks meanwhile
    assert thread_states(pid) == ({"T"}, before)


def wait_until_gone(pid: int, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not Path(f"/proc/{pid}").exists():
            return True
        time.sleep(0.02)
    return False


def test_a_bot_is_frozen_while_it_is_not_its_turn(tier: str, tmp_path: Path) -> None:
    player = SandboxedPlayer(hostile_bot("thread_while_returning", tmp_path), LIMITS, tier=tier)
    try:
        player.start(5)
        assert player.pid is not None
        assert_frozen(player.pid)  # frozen after loading, though its thread spins

        action = player.act(observation(), 2)

        assert action in observation()["legal_actions"]
        assert_frozen(player.pid)  # its threads cannot think on the opponent's time
    finally:
        player.cleanup()


SINGLE_THREADED = "def act(observation):\n    return observation['legal_actions'][0]\n"

# Starts a spinning thread at its second decision: seen at the end of that turn.
LATE_THREAD = """
import threading

calls = 0


def spin():
    while True:
        pass


def act(observation):
    global calls
    calls += 1
    if calls == 2:
        threading.Thread(target=spin, daemon=True).start()
    return observation["legal_actions"][0]
"""

# Single-threaded, but would think off-turn in a timer's signal handler (the host blocked in
# read() runs it) if it were not frozen.
SIGNAL_THINKER = """
import signal
import time


def think(number, frame):
    end = time.thread_time() + 0.002
    while time.thread_time() < end:
        pass


def act(observation):
    signal.signal(signal.SIGALRM, think)
    signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)
    return observation["legal_actions"][0]
"""


def bot_file(folder: Path, name: str, code: str) -> BotSource:
    path = folder / name / f"{name}.py"
    path.parent.mkdir()
    path.write_text(code)
    return BotSource(name, path)


def count_stops(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every SIGSTOP and SIGCONT sent from now on (SIGKILL still goes through)."""
    sent: list[int] = []
    send = signal.pidfd_send_signal

    def recording(pidfd: int, number: int, *args: object) -> None:
        if number in (signal.SIGSTOP, signal.SIGCONT):
            sent.append(number)
        send(pidfd, number, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(signal, "pidfd_send_signal", recording)
    return sent


def test_a_turn_change_freezes_the_bot_whose_turn_ended_and_a_second_decision_costs_no_signal(
    tier: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = TurnGate()
    first, second = (
        SandboxedPlayer(bot_file(tmp_path, f"plain{n}", SINGLE_THREADED), LIMITS, tier=tier, gate=gate)
        for n in range(2)
    )
    try:
        first.start(5)
        second.start(5)
        sent = count_stops(monkeypatch)
        first.act(observation(), 2)
        assert sent == [signal.SIGCONT]  # thawed once its request is in the pipe
        first.act(observation(), 2)
        assert sent == [signal.SIGCONT]  # the same bot again: no signal
        second.act(observation(), 2)
        assert sent == [signal.SIGCONT, signal.SIGSTOP, signal.SIGCONT]
        assert_frozen(first.pid)  # type: ignore[arg-type]
    finally:
        first.cleanup()
        second.cleanup()


def test_a_bot_that_starts_a_thread_after_its_first_decision_is_frozen_off_turn(tier: str, tmp_path: Path) -> None:
    gate = TurnGate()
    late = SandboxedPlayer(bot_file(tmp_path, "late", LATE_THREAD), LIMITS, tier=tier, gate=gate)
    plain = SandboxedPlayer(bot_file(tmp_path, "plain", SINGLE_THREADED), LIMITS, tier=tier, gate=gate)
    try:
        late.start(5)
        plain.start(5)
        for _ in range(2):
            late.act(observation(), 2)  # starts its spinning thread the second time
            plain.act(observation(), 2)
            assert_frozen(late.pid)  # type: ignore[arg-type]
    finally:
        late.cleanup()
        plain.cleanup()


# Starts a spinning thread in its first start_game, so it would think while the next bot loads.
SPINS_FROM_START_GAME = """
import threading


def spin():
    while True:
        pass


def start_game(info):
    threading.Thread(target=spin, daemon=True).start()


def act(observation):
    return observation["legal_actions"][0]
"""

SLOW_LOADER = "import time\n\ntime.sleep(0.5)\n\n" + SINGLE_THREADED


def test_the_other_bots_are_frozen_while_a_bot_loads(tier: str, tmp_path: Path) -> None:
    """Loading is timed like a decision: a bot whose threads ran while its opponent loaded would
    take the CPU the opponent loads with (and could make it fail its start-up time)."""
    gate = TurnGate()
    thief = SandboxedPlayer(bot_file(tmp_path, "thief", SPINS_FROM_START_GAME), LIMITS, tier=tier, gate=gate)
    loader = SandboxedPlayer(bot_file(tmp_path, "loader", SLOW_LOADER), LIMITS, tier=tier, gate=gate)
    try:
        thief.start(5)
        thief.start_game({"seat": 0}, 5)  # its thread spins from now on, until it is frozen
        assert thief.pid is not None
        ticks_before = thread_states(thief.pid)[1]

        loader.start(5)  # half a second of loading, the thief frozen meanwhile

        assert_frozen(thief.pid)
        assert thread_states(thief.pid)[1] - ticks_before <= 5  # a spinning thread: about 50 ticks
    finally:
        thief.cleanup()
        loader.cleanup()


class BusyParent(SandboxedPlayer):
    """A parent slow to look for the host's process after "confined" (a busy worker)."""

    def _host_pid(self) -> int:
        time.sleep(0.3)
        return super()._host_pid()


def test_a_bot_that_ends_its_process_as_it_is_imported_is_charged_however_slow_the_parent(
    tier: str, tmp_path: Path
) -> None:
    """Its code runs only once the parent has found its process: in the bubblewrap tier the
    process would otherwise be reaped by bwrap's init and vanish, and the bot be taken for a
    sandbox that did not start (the platform's fault, the match failed and the bot not charged)."""
    player = BusyParent(bot_file(tmp_path, "quitter", "import os\n\nos._exit(3)\n"), LIMITS, tier=tier)
    try:
        with pytest.raises(BotFailure) as failure:
            player.start(5)
        assert (failure.value.kind, failure.value.message) == (
            "exited",
            "the bot's process exited with status 3 while loading",
        )
        assert failure.value.kind != "startup_failed"
    finally:
        player.cleanup()


def test_a_single_threaded_bot_cannot_think_off_turn_in_a_signal_handler(tier: str, tmp_path: Path) -> None:
    """Its host looks blocked reading the pipe, but a timer's handler would run there: frozen."""
    player = SandboxedPlayer(bot_file(tmp_path, "thinker", SIGNAL_THINKER), LIMITS, tier=tier)
    try:
        player.start(5)
        player.act(observation(), 2)
        assert_frozen(player.pid)  # type: ignore[arg-type]
        player.act(observation(), 2)  # it runs again on its turn, and answers
        assert_frozen(player.pid)  # type: ignore[arg-type]
    finally:
        player.cleanup()


def test_the_bots_traceback_is_kept_in_its_stderr_tail(tier: str, tmp_path: Path) -> None:
    player = SandboxedPlayer(hostile_bot("raises", tmp_path), LIMITS, tier=tier)
    try:
        player.start(5)
        with pytest.raises(BotFailure) as failure:
            player.act(observation(), 2)
        assert failure.value.kind == "exception"
        assert "Traceback" in failure.value.stderr_tail
        assert 'raise ValueError("the bot gave up")' in failure.value.stderr_tail
    finally:
        player.cleanup()


def test_stderr_is_a_bounded_file(tier: str, tmp_path: Path) -> None:
    player = SandboxedPlayer(hostile_bot("stderr_flood", tmp_path), LIMITS, tier=tier)
    try:
        player.start(5)
        for _ in range(3):  # 12 MB written in all
            player.act(observation(), 2)
        assert player._stderr is not None
        assert os.fstat(player._stderr.fileno()).st_size <= STDERR_CAP_BYTES
        assert 0 < len(player.stderr_tail()) <= 4000
    finally:
        player.cleanup()


@pytest.mark.parametrize("bot", ["cpu_burner", "cpu_burner_ignoring_sigxcpu"])
def test_cpu_time_beyond_the_rlimit_is_a_cpu_limit_failure(tier: str, tmp_path: Path, bot: str) -> None:
    slow = Limits(move_seconds=10, move_timeout_seconds=30, startup_seconds=5)
    player = SandboxedPlayer(hostile_bot(bot, tmp_path), slow, tier=tier, cpu_seconds=1)
    try:
        player.start(5)
        with pytest.raises(BotFailure) as failure:
            player.act(observation(), 30)
        assert failure.value.kind == "cpu_limit"
        assert "SIGXCPU" in failure.value.message
    finally:
        player.cleanup()


def test_a_sandbox_that_cannot_start_is_the_platforms_fault(tier: str, monkeypatch: pytest.MonkeyPatch) -> None:
    player = SandboxedPlayer(builtin_source("random"), LIMITS, tier=tier)
    broken = dataclasses.replace(runtime.interpreter(), executable=Path("/nonexistent/python3"))
    monkeypatch.setattr(launch, "interpreter", lambda: broken)  # the Landlock tier's interpreter
    monkeypatch.setattr(launch, "SANDBOX_PYTHON", "/nonexistent/python3")  # where bubblewrap looks
    try:
        with pytest.raises(BotFailure) as failure:
            player.start(5)
        assert failure.value.kind == "startup_failed"
    finally:
        player.cleanup()


def write_zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


def test_a_zipped_bot_is_unpacked_privately_and_read_only(tier: str, tmp_path: Path) -> None:
    package = write_zip(
        tmp_path / "pkg.zip",
        {
            "bot.py": "from helpers import first\n\ndef act(observation):\n    return first(observation)\n",
            "helpers.py": "def first(observation):\n    open('scratch.txt', 'w')\n",
        },
    )
    player = SandboxedPlayer(BotSource("pkg", package), LIMITS, tier=tier)
    try:
        player.start(5)
        with pytest.raises(BotFailure) as failure:
            player.act(observation(), 2)
        assert failure.value.kind == "exception"
        assert "scratch.txt" in failure.value.message  # its own folder is read-only too
    finally:
        player.cleanup()


@pytest.mark.parametrize("name", ["../evil.py", "/abs/bot.py"])
def test_an_unsafe_zip_is_refused_before_anything_runs(tier: str, tmp_path: Path, name: str) -> None:
    package = write_zip(tmp_path / "evil.zip", {"bot.py": "def act(o):\n    return 'pass'\n", name: "x = 1\n"})
    player = SandboxedPlayer(BotSource("evil", package), LIMITS, tier=tier)
    try:
        with pytest.raises(BotFailure) as failure:
            player.start(5)
        assert failure.value.kind == "load"
        assert "unsafe path" in failure.value.message
        assert not (tmp_path.parent / "evil.py").exists()
    finally:
        player.cleanup()


BOT = "def act(observation):\n    return observation['legal_actions'][0]\n"


@pytest.mark.parametrize(
    ("members", "refusal"),
    [
        ([("bot.py", BOT), ("bot.py", "x = 1\n")], "'bot.py' is given twice, or both as a file and as a folder"),
        ([("bot.py", BOT), ("a/b.py", ""), ("a/./b.py", "")], "'a/./b.py' is given twice"),
        ([("bot.py", BOT), ("a", ""), ("a/b.py", "")], "'a/b.py' is given twice, or both as a file and as a folder"),
        ([("bot.py", BOT), ("a/b.py", ""), ("a", "")], "'a' is given twice, or both as a file and as a folder"),
        ([("bot.py", BOT), ("x" * 300 + ".py", "")], "'" + "x" * 80 + "'... (303 characters): File name too long"),
    ],
    ids=["same-file-twice", "same-file-twice-spelt-otherwise", "file-then-folder", "folder-then-file", "long-name"],
)
def test_a_zip_that_cannot_be_unpacked_as_it_is_is_refused_by_its_entry(
    tier: str, tmp_path: Path, members: list[tuple[str, str]], refusal: str
) -> None:
    """Said with the entry's name, never the worker's folder it was unpacked into (nor called
    unreadable: it is read, and refused)."""
    package = tmp_path / "clash.zip"
    with warnings.catch_warnings(), zipfile.ZipFile(package, "w") as archive:
        warnings.simplefilter("ignore")  # zipfile warns of a duplicate name
        for name, text in members:
            archive.writestr(name, text)
    player = SandboxedPlayer(BotSource("clash", package), LIMITS, tier=tier)
    try:
        with pytest.raises(BotFailure) as failure:
            player.start(5)
        assert failure.value.kind == "load"
        assert failure.value.message.startswith("clash.zip: ")
        assert refusal in failure.value.message
        assert tempfile.gettempdir() not in failure.value.message
    finally:
        player.cleanup()


def test_a_bot_that_is_a_device_is_refused_before_anything_is_copied(tier: str, tmp_path: Path) -> None:
    (tmp_path / "zero.py").symlink_to("/dev/zero")  # copied, it would fill the disk
    player = SandboxedPlayer(BotSource("zero", tmp_path / "zero.py"), LIMITS, tier=tier)
    try:
        with pytest.raises(BotFailure) as failure:
            player.start(5)
        assert (failure.value.kind, failure.value.message) == (
            "load",
            "zero: a bot is a regular file, a zip or a folder, not a device or a pipe",
        )
    finally:
        player.cleanup()


def test_a_single_file_bot_larger_than_a_zip_may_unpack_to_is_refused(tier: str, tmp_path: Path) -> None:
    huge = tmp_path / "huge.py"
    with huge.open("wb") as handle:
        handle.write(b"def act(observation):\n    return observation['legal_actions'][0]\n#")
        handle.truncate(runtime.MAX_UNPACKED_BYTES + 1)  # sparse: no disk used until it is copied
    player = SandboxedPlayer(BotSource("huge", huge), LIMITS, tier=tier)
    try:
        with pytest.raises(BotFailure) as failure:
            player.start(5)
        assert (failure.value.kind, failure.value.message) == (
            "load",
            f"huge.py: larger than {runtime.MAX_UNPACKED_BYTES} bytes",
        )
    finally:
        player.cleanup()


WORKER = textwrap.dedent(
    """
    import sys
    from lineit.botkit.limits import Limits
    from lineit.botkit.sources import BotSource
    from lineit.engine import new_game
    from lineit.sandbox import SandboxedPlayer
    from pathlib import Path

    player = SandboxedPlayer(BotSource("sleeper", Path(sys.argv[2])), Limits(move_timeout_seconds=60), tier=sys.argv[1])
    player.start(10)
    print(player.pid, flush=True)
    if sys.argv[3] == "thinking":
        player.act(new_game(2, seed=1).observation(0), 60)
    else:
        import time
        time.sleep(60)
    """
)


@pytest.mark.parametrize("moment", ["thinking", "frozen"])
def test_everything_dies_when_the_worker_is_killed(tier: str, tmp_path: Path, moment: str) -> None:
    bot = hostile_bot("infinite_sleep", tmp_path)
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, tier, str(bot.path), moment], stdout=subprocess.PIPE, cwd=REPO, text=True
    )
    try:
        assert worker.stdout is not None
        host = int(worker.stdout.readline())
        assert Path(f"/proc/{host}").exists()

        worker.send_signal(signal.SIGKILL)
        worker.wait()

        assert wait_until_gone(host), f"the bot host {host} outlived its worker"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def test_bubblewraps_init_is_kept_stopped_and_let_go_to_report_a_crash(tmp_path: Path) -> None:
    """bubblewrap's init (the host's parent) would be woken by every freeze and thaw of the host;
    it is stopped while the bot plays, and let go when the host dies so its exit is reported."""
    from lineit.sandbox.tiers import detect_tier

    if "bubblewrap" not in detect_tier().working:
        pytest.fail("bubblewrap must work on the machines this suite runs on")
    player = SandboxedPlayer(hostile_bot("crash_segfault", tmp_path), LIMITS, tier="bubblewrap")
    try:
        player.start(5)
        assert player.pid is not None
        init = int(Path(f"/proc/{player.pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        assert_frozen(init)

        with pytest.raises(BotFailure) as failure:
            player.act(observation(), 2)

        assert (failure.value.kind, "SIGSEGV" in str(failure.value)) == ("crash", True)
        assert wait_until_gone(init)
    finally:
        player.cleanup()


def test_closing_kills_the_bot_even_when_an_interrupted_kill_left_it_marked_killed(tier: str, tmp_path: Path) -> None:
    """A signal (Ctrl-C, SIGTERM) that lands in the middle of a kill may leave the player marked
    killed with its bot alive; closing must still kill it, not wait for it for ever."""
    import threading

    player = SandboxedPlayer(bot_file(tmp_path, "plain", SINGLE_THREADED), LIMITS, tier=tier)
    player.start(5)
    pid = player.pid
    assert pid is not None
    player._killed = True  # as a kill cut short after marking, before signalling, would leave it
    closing = threading.Thread(target=player.cleanup, daemon=True)
    closing.start()
    closing.join(30)
    assert not closing.is_alive(), "close() waited for a bot nobody killed"
    assert wait_until_gone(pid)
