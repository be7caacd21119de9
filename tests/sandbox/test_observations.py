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

from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.sources import BotSource
from lineit.engine import new_game
from lineit.sandbox import SandboxedPlayer

LIMITS = Limits(move_seconds=0.5, move_timeout_seconds=2, startup_seconds=5)

# Answers with its whole observation, then damages it every way it can.
ECHO_AND_VANDALISE = """
import json


def act(observation):
    seen = json.dumps(observation, sort_keys=True)
    for view in observation["players"]:
        view["score"] = -1
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
    """Its next observation is a new dict with a new players' list, complete; the values it
    damaged that the engine shares again (a player's view that did not change, say) are damaged
    for it, exactly as they are for the same bot in-process. The referee's observations are
    untouched."""
    source = bot(tmp_path, "vandal", ECHO_AND_VANDALISE)
    player = SandboxedPlayer(source, LIMITS, tier=tier)
    in_process = InProcessPlayer(source)
    try:
        player.start(5)
        in_process.start(5)
        # the same games twice: the in-process bot damages its own copy of the engine's values
        for observation, twin in zip(observations(2), observations(2), strict=True):
            snapshot = marshal.dumps(observation, 2)
            assert player.act(observation, 2) == in_process.act(twin, 2)
            assert marshal.dumps(observation, 2) == snapshot
    finally:
        player.cleanup()
        in_process.close()


def test_only_the_values_that_are_new_objects_are_sent(tier: str, tmp_path: Path) -> None:
    player = SandboxedPlayer(bot(tmp_path, "echo", ECHO), LIMITS, tier=tier)
    first, second = observations(1)[:2]
    try:
        player.start(5)
        assert player._observation_request(first) == ("act", first)
        assert player._observation_request(first) == ("update", {})  # the very same objects
        operation, (changes, views) = player._observation_request(second)
        assert operation == "views"
        changed = {key for key, value in second.items() if value is not first[key]}
        assert "players" in changed  # the list is new every time
        assert set(changes) == changed - {"players"} and set(changes) < set(second)
        assert all(value is second[key] for key, value in changes.items())
        # of the players' views only those that are new objects are sent, by seat
        assert views == {
            seat: view for seat, view in enumerate(second["players"]) if view is not first["players"][seat]
        }
        assert len(views) < len(second["players"])
        # an observation whose players are not a list of views goes as it is
        odd = second | {"players": {"not": "a list"}}
        assert player._observation_request(odd) == ("update", {"players": {"not": "a list"}})
        player._sent = None  # the requests above were made, not sent: start the host afresh
        assert player.act(second, 2) == json.dumps(second, sort_keys=True)
        assert player.act(odd, 2) == json.dumps(odd, sort_keys=True)  # replaced, not merged
    finally:
        player.cleanup()


def test_five_players_views_travel_only_when_they_change(tier: str, tmp_path: Path) -> None:
    """With five seats most decisions change one player's view: the host rebuilds the others."""
    seen = observations(1, players=5)[::5]  # seat 0's observation at every decision
    counting = SandboxedPlayer(bot(tmp_path, "count", ECHO), LIMITS, tier=tier)
    requests = [counting._observation_request(observation) for observation in seen]  # no process needed
    sent = sum(len(views) for operation, (_, views) in requests[1:] if operation == "views")
    assert all(operation == "views" for operation, _ in requests[1:])
    assert 0 < sent < (len(seen) - 1) * 5 / 2
    player = SandboxedPlayer(bot(tmp_path, "echo", ECHO), LIMITS, tier=tier)
    try:
        player.start(5)
        for observation in seen:
            assert player.act(observation, 2) == json.dumps(observation, sort_keys=True)
    finally:
        player.cleanup()
