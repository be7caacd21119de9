"""Third-party packages in bots: numpy, and only numpy, is importable read-only in every working
tier; it fits the memory limit with room, the limit still stops an array too large, it runs one
thread, and a bot that uses it to get out gets nowhere. The suite installs numpy: these tests
fail, never skip, without it."""

from __future__ import annotations

import json
from pathlib import Path

from sandbox_helpers import FAST, hostile_bot, play_one_game

from lineit.botkit.failures import BotFailure
from lineit.botkit.limits import DEFAULT_MEMORY_MB, Limits
from lineit.botkit.sources import BotSource
from lineit.engine import new_game
from lineit.sandbox import SandboxedPlayer
from lineit.sandbox.runtime import ALLOWED_PACKAGES, allowed_packages

NUMPY_BOT = Path(__file__).resolve().parent / "engine_bots" / "numpy_user.py"
SECRET = "s3cr3t-numbers-of-the-worker"
OBSERVATION = new_game(2, seed=5).observation(0)


def ask(player: SandboxedPlayer, request: str) -> dict:
    return json.loads(player.act({**OBSERVATION, "legal_actions": [request]}, 5))


def started(tier: str, memory_mb: int = DEFAULT_MEMORY_MB) -> SandboxedPlayer:
    player = SandboxedPlayer(BotSource(name="numpy", path=NUMPY_BOT), Limits(memory_mb=memory_mb), tier=tier)
    player.start(10)
    player.start_game({"game": 0, "seat": 0}, 5)
    return player


def test_numpy_is_the_allowed_package_and_is_installed_here() -> None:
    assert ALLOWED_PACKAGES == ("numpy",)
    assert [package.name for package in allowed_packages()] == ["numpy"]


def test_a_bot_plays_with_numpy_in_a_quarter_of_the_default_memory_on_one_thread(tier: str) -> None:
    # Given a numpy bot under a quarter of the default memory limit (room to spare at the default)
    player = started(tier, memory_mb=DEFAULT_MEMORY_MB // 4)
    try:
        # When it thinks with arrays
        action = player.act(OBSERVATION, 5)
        found = ask(player, "report")
        status = dict(
            line.split(":", 1) for line in Path(f"/proc/{player.pid}/status").read_text().splitlines() if ":" in line
        )
        threads = f"Threads: {status['Threads'].strip()}"
        # its own peak, read by the parent: getrusage's ru_maxrss survives exec, so a bot host
        # forked from a big process (the test runner, late in the suite) would report the parent's
        peak_kb = int(status["VmHWM"].split()[0])
    finally:
        player.cleanup()

    # Then it plays, with the worker's numpy seen read-only from the packages folder, on one thread
    assert action in OBSERVATION["legal_actions"]
    assert found["file"].endswith("/packages/numpy/__init__.py")
    assert found["threads"] == "1" and threads.split() == ["Threads:", "1"]
    assert peak_kb < DEFAULT_MEMORY_MB * 1024 / 4


def test_the_memory_limit_stops_an_array_too_large(tier: str) -> None:
    player = started(tier)
    try:
        try:
            ask(player, "hog")
        except BotFailure as failure:
            assert failure.kind == "memory"
        else:
            raise AssertionError("an 8 GB array fitted a 512 MB limit")
    finally:
        player.cleanup()


def test_only_the_allowed_packages_are_visible_beside_numpy(tier: str) -> None:
    player = started(tier)
    try:
        found = ask(player, "look around")
    finally:
        player.cleanup()
    assert found["beside"] == ["numpy", "numpy.libs"] or found["beside"] == ["numpy"]
    assert found["site"] == "PermissionError" or set(found["site"]) <= {"numpy", "numpy.libs"}
    assert found["networkx"] == "ModuleNotFoundError"


def test_a_bot_cannot_get_out_through_numpy(tier: str, tmp_path: Path) -> None:
    # Given a secret file and a folder outside the bot's, and a bot that uses numpy against them
    secret = tmp_path / "secret.npy"
    secret.write_text(SECRET)
    outside = tmp_path / "outside"
    outside.mkdir()
    source = hostile_bot("numpy_escape", tmp_path / "bots", target=secret, outside=outside)

    result = play_one_game(tier, source, FAST)

    # Then every attempt was refused, nothing was written, nothing leaked
    (failure,) = result.failures
    assert (failure.kind, failure.seat) == ("exception", 0)
    assert "every escape through numpy was refused" in failure.message, failure.message
    assert SECRET not in failure.message and SECRET not in failure.stderr_tail
    assert list(outside.iterdir()) == []
