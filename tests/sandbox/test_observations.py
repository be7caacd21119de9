"""Observations through the sandbox: the parent sends only the values that are not the very
objects the bot's host received last time, and the host rebuilds the rest. These tests check
the engine's side of that bargain (it never changes a value once made) and that a bot sees
exactly the observation it was given, whatever it does to the previous ones."""

from __future__ import annotations

import itertools
import json
import marshal
import random
from pathlib import Path
from typing import Any

from lineit_platform.botkit.limits import Limits
from lineit_platform.botkit.sources import BotSource
from lineit_platform.engine import new_game
from lineit_platform.sandbox import SandboxedPlayer

LIMITS = Limits(move_seconds=0.5, move_timeout_seconds=2, startup_seconds=5)

# Answers with its whole observation, then damages it every way it can.
ECHO_AND_VANDALISE = """
import json


def act(observation):
    seen = json.dumps(observation, sort_keys=True)
    for value in observation.values():
        if isinstance(value, list):
            value.append(0)
        elif isinstance(value, dict):
            value.clear()
    observation.clear()
    observation["seat"] = -1
    return seen
"""

# Answers with its whole observation and leaves it alone.
ECHO = """
import json


def act(observation):
    return json.dumps(observation, sort_keys=True)
"""


def observations(games: int, players: int = 2) -> list[dict[str, Any]]:
    """Every seat's observation at every decision of a few random games, in order."""
    found = []
    rng = random.Random(7)
    for seed in range(games):
        state = new_game(players, seed=seed)
        while not state.is_over:
            found += [state.observation(seat) for seat in range(players)]
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    return found


def bot(folder: Path, name: str, code: str) -> BotSource:
    path = folder / name / f"{name}.py"
    path.parent.mkdir()
    path.write_text(code)
    return BotSource(name, path)


def test_the_engine_never_changes_an_observation_it_made_and_shares_unchanged_values() -> None:
    made, snapshots = [], []
    rng = random.Random(3)
    for seed in range(3):
        state = new_game(3, seed=seed)
        while not state.is_over:
            for seat in range(3):
                made.append(state.observation(seat))
                snapshots.append(marshal.dumps(made[-1], 2))  # version 2: the bytes follow the content only
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    assert [marshal.dumps(observation, 2) for observation in made] == snapshots  # nothing changed afterwards
    shared = sum(value is before[key] for before, after in itertools.pairwise(made) for key, value in after.items())
    assert shared > len(made) * 5  # the sandbox relies on the sharing to send less


def test_a_sandboxed_bot_sees_exactly_each_observation(tier: str, tmp_path: Path) -> None:
    player = SandboxedPlayer(bot(tmp_path, "echo", ECHO), LIMITS, tier=tier)
    try:
        player.start(5)
        for observation in observations(2):
            assert player.act(observation, 2) == json.dumps(observation, sort_keys=True)
    finally:
        player.cleanup()


def test_a_bot_that_damages_its_observations_only_confuses_itself(tier: str, tmp_path: Path) -> None:
    """Its next observation is a new dict, complete; the values it damaged that the engine
    shares again are damaged for it, exactly as they would be for an in-process bot. The
    referee's observations are untouched."""
    player = SandboxedPlayer(bot(tmp_path, "vandal", ECHO_AND_VANDALISE), LIMITS, tier=tier)
    local: dict[str, Any] | None = None  # the observation given last time
    damaged: dict[str, Any] = {}  # what the bot made of it: what an in-process bot would see again
    try:
        player.start(5)
        for observation in observations(2):
            snapshot = marshal.dumps(observation, 2)
            expected = observation.copy()
            if local is not None:
                for key, value in expected.items():
                    if value is local[key]:
                        expected[key] = damaged[key]
            local = observation
            assert player.act(observation, 2) == json.dumps(expected, sort_keys=True)
            assert marshal.dumps(observation, 2) == snapshot
            damaged = marshal.loads(marshal.dumps(expected))
            for value in damaged.values():
                if isinstance(value, list):
                    value.append(0)
                elif isinstance(value, dict):
                    value.clear()
    finally:
        player.cleanup()


def test_only_the_values_that_are_new_objects_are_sent(tier: str, tmp_path: Path) -> None:
    player = SandboxedPlayer(bot(tmp_path, "echo", ECHO), LIMITS, tier=tier)
    first, second = observations(1)[:2]
    try:
        player.start(5)
        assert player._observation_request(first) == ("act", first)
        assert player._observation_request(first) == ("update", {})
        operation, changes = player._observation_request(second)
        assert operation == "update"
        assert changes == {key: value for key, value in second.items() if value is not first[key]}
        assert set(changes) < set(second)
    finally:
        player.cleanup()
