"""The sandbox host gives its bot a whole copy of each observation (host.py, serve): what the bot
changes in one, at once or later through references it kept, is not in its next one, as
in-process (tests/botkit/test_observation_isolation.py). The parent still sends only what
changed."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.sources import BotSource
from lineit.engine import new_game
from lineit.sandbox import SandboxedPlayer

LIMITS = Limits(move_seconds=0.5, move_timeout_seconds=2, startup_seconds=5)

ECHO_AND_DAMAGE_DEEPLY = """
import json

KEPT = []


def damage(value, depth=0):
    if depth > 6:
        return
    if isinstance(value, list):
        for item in value:
            damage(item, depth + 1)
        value.append(103)
        value.insert(0, "x")
    elif isinstance(value, dict):
        for item in list(value.values()):
            damage(item, depth + 1)
        for key in list(value):
            if not isinstance(value[key], (list, dict)):
                value[key] = -7777
        value["extra"] = [1]


def act(observation):
    seen = json.dumps(observation, sort_keys=True)
    for old in KEPT[-3:]:
        damage(old)
    KEPT.append(observation)
    damage(observation)
    return seen
"""


def observations(seed: int, players: int = 3) -> list[dict[str, Any]]:
    found = []
    rng = random.Random(seed)
    state = new_game(players, seed=seed)
    while not state.is_over:
        found.append(state.observation(state.current_player))
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return found


def test_a_bot_that_damages_its_observations_sees_each_next_one_whole(tier: str, tmp_path: Path) -> None:
    path = tmp_path / "vandal" / "vandal.py"
    path.parent.mkdir()
    path.write_text(ECHO_AND_DAMAGE_DEEPLY)
    source = BotSource("vandal", path)
    sandboxed, in_process = SandboxedPlayer(source, LIMITS, tier=tier), InProcessPlayer(source)
    try:
        sandboxed.start(5)
        in_process.start(5)
        given, twins = observations(4), observations(4)  # the engine's, as the referee passes them
        expected = [json.dumps(observation, sort_keys=True) for observation in given]
        for observation, twin, answer in zip(given, twins, expected, strict=True):
            assert sandboxed.act(observation, 2) == answer
            assert in_process.act(twin, 2) == answer
        assert len(given) > 100
        assert [json.dumps(observation, sort_keys=True) for observation in given + twins] == expected * 2
    finally:
        sandboxed.cleanup()
        in_process.close()
