"""Helpers for the sandbox suite: hostile bots copied into private folders, a one-game match
against the random bot, and the processes a test may have left behind. (A module of its own, not
conftest.py: several test folders have a conftest, and which one ``import conftest`` finds
depends on the order the folders are collected in.)"""

from __future__ import annotations

import os
from pathlib import Path

from lineit.botkit.limits import Limits
from lineit.botkit.referee import MatchResult
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource, builtin_source
from lineit.sandbox import detect_tier, run_sandboxed_match
from lineit.sandbox.runtime import sandbox_folder

# The suite runs every hostile bot in every tier that works, the Landlock tier too: its
# containment is tested although, by default, untrusted bots are not run there (test_world.py).
os.environ["SANDBOX_LANDLOCK_ACCEPT_HOST_VIEW"] = "1"

NUL = b"\0"
HOSTILE = Path(__file__).resolve().parent / "hostile"
WORKING_TIERS = detect_tier().working
FAST = Limits(move_seconds=0.2, bank_seconds=0.3, move_timeout_seconds=0.4, startup_seconds=3, max_failures=3)


def hostile_bot(name: str, folder: Path, **replacements: object) -> BotSource:
    """hostile/<name>.py copied alone into its own folder, placeholders filled in."""
    code = (HOSTILE / f"{name}.py").read_text()
    for key, value in replacements.items():
        code = code.replace(f"__{key.upper()}__", str(value))
    bot_folder = folder / f"bot-{name}"
    bot_folder.mkdir(parents=True, exist_ok=True)
    path = bot_folder / f"{name}.py"
    path.write_text(code)
    return BotSource(name=name, path=path)


def play_one_game(tier: str, source: BotSource, limits: Limits = FAST, games: int = 1) -> MatchResult:
    """The hostile bot is entrant 0 (seat 0 in game 0), the random bot entrant 1."""
    spec = MatchSpec(num_players=2, games=games, seed=11)
    return run_sandboxed_match(spec, [source, builtin_source("random")], limits=limits, tier=tier)


def descendants(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            found += [child, *descendants(child)]
    return found


def sandbox_processes() -> list[str]:
    """Every process on the machine started from this test process's sandbox folder."""
    marker = str(sandbox_folder()).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker in command:
                found.append(f"{entry.name}: {command.replace(NUL, b' ').decode(errors='replace')}")
    return found
