"""No in-process bot can change what another bot sees, what the referee records or what it is
given itself next: every observation, start_game info and end_game result is the bot's own
copy (botkit/players.py, engine.observation.private_copy). The games of hostile bots that
damage everything they are given, at once and later through references they kept, are compared
with the same games played by well-behaved twins that make the same choices."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource
from lineit.engine import verify_replay

# Every bot chooses with its own generator among the legal actions it was given, before it does
# anything else, so a vandal and its polite twin choose alike as long as they are given alike.
CHOOSER = """
import builtins
import marshal
import random


def vandalise(value, depth=0):
    if depth > 6:
        return
    if isinstance(value, list):
        for item in value:
            vandalise(item, depth + 1)
        value.append(103)
        value.insert(0, "x")
        if len(value) > 2:
            value[1] = -1
    elif isinstance(value, dict):
        for item in list(value.values()):
            vandalise(item, depth + 1)
        for key in list(value):
            if not isinstance(value[key], (list, dict)):
                value[key] = -7777
        value["extra"] = [1]


class Bot:
    def start_game(self, info):
        self.rng = random.Random(info["game"] * 10 + info["seat"])
        self.record("start", info)
        self.damage(info)

    def act(self, observation):
        self.record("act", observation)
        legal = observation["legal_actions"]
        action = legal[self.rng.randrange(len(legal))]
        self.damage(observation)
        return action

    def end_game(self, result):
        self.record("end", result)
        self.damage(result)

    def record(self, what, value):
        pass

    def damage(self, value):
        pass
"""

VANDAL = (
    CHOOSER
    + """
builtins.h4_kept = KEPT = []


class Bot(Bot):
    def damage(self, value):
        for old in KEPT[-3:]:  # what it was given before, damaged again
            vandalise(old)
        KEPT.append(value)
        vandalise(value)
"""
)

# Damages, on its own turn, what the vandal kept: the vandal's references changed while
# another bot plays.
ACCOMPLICE = (
    CHOOSER
    + """
class Bot(Bot):
    def damage(self, value):
        for old in getattr(builtins, "h4_kept", [])[-3:]:
            vandalise(old)
"""
)

RECORDER = (
    CHOOSER
    + """
class Bot(Bot):
    def record(self, what, value):
        builtins.h4_records.append((what, marshal.dumps(value, 2)))
"""
)


def source(folder: Path, name: str, code: str, as_name: str) -> BotSource:
    path = folder / name / "bot.py"
    path.parent.mkdir(parents=True)
    path.write_text(code)
    return BotSource(as_name, path)


def play(folder: Path, codes: list[str], ruleset: str) -> tuple[list[tuple[str, bytes]], list[Any]]:
    builtins.h4_records = []  # type: ignore[attr-defined]
    builtins.h4_kept = []  # type: ignore[attr-defined]
    players = [InProcessPlayer(source(folder, f"seat{index}", code, f"bot{index}")) for index, code in enumerate(codes)]
    spec = MatchSpec(num_players=len(codes), games=3, ruleset=ruleset, seed=11)
    try:
        result = run_match(spec, players)
    finally:
        records = builtins.h4_records  # type: ignore[attr-defined]
        del builtins.h4_records, builtins.h4_kept  # type: ignore[attr-defined]
    return records, result.games


@pytest.mark.parametrize("ruleset", ["standard", "bga"])
def test_bots_that_damage_everything_they_are_given_change_nothing_for_anyone(ruleset: str, tmp_path: Path) -> None:
    polite, politer = CHOOSER, CHOOSER
    seen, games = play(tmp_path / "hostile", [VANDAL, ACCOMPLICE, RECORDER], ruleset)
    expected_seen, expected_games = play(tmp_path / "polite", [polite, politer, RECORDER], ruleset)

    assert len(seen) == len(expected_seen) > 100
    assert seen == expected_seen  # the recorder saw exactly what it sees among polite bots
    for game, expected in zip(games, expected_games, strict=True):
        assert game.failures == [] and expected.failures == []
        assert game.replay == expected.replay  # names, moves, scores, ranks: the same game
        assert (game.names, game.scores, game.ranks) == (expected.names, expected.scores, expected.ranks)
        assert verify_replay(game.replay).ok


def test_an_observation_agrees_with_itself_whatever_a_bot_did_to_the_earlier_ones(tmp_path: Path) -> None:
    """The report of issue 14: a bot that appended to its observation made the next bot read a
    draw_count of 103 with 102 cards left. Here every bot appends, and each checks its own."""
    checker = (
        CHOOSER
        + """
class Bot(Bot):
    def record(self, what, value):
        if what == "act":
            assert len(value["unseen"]) == value["draw_count"], (len(value["unseen"]), value["draw_count"])
            assert value["legal_actions"] and "x" not in value["legal_actions"]
            assert all(view["score"] != -7777 and "extra" not in view for view in value["players"])

    def damage(self, value):
        vandalise(value)
"""
    )
    _, games = play(tmp_path, [checker, checker], "standard")
    assert all(game.failures == [] for game in games), [game.failures for game in games]


def test_a_bot_that_adds_its_own_action_to_legal_actions_still_plays_an_illegal_move(tmp_path: Path) -> None:
    cheat = """
def act(observation):
    observation["legal_actions"].append("close")
    return "close" if observation["phase"] == "take" else observation["legal_actions"][0]
"""
    path = tmp_path / "cheat.py"
    path.write_text(cheat)
    result = run_match(
        MatchSpec(num_players=2, games=1, seed=3),
        [InProcessPlayer(BotSource("cheat", path)), InProcessPlayer(BotSource("c2", path))],
    )
    game = result.games[0]
    assert [failure.kind for failure in game.failures] == ["illegal_move", "illegal_move"]
    assert [action for _, action in game.replay["illegal_actions"]] == ["close", "close"]
    verdict = verify_replay(game.replay)
    assert verdict.ok, verdict.message
    assert all("'close', which it returned, is illegal there (checked)" in claim for claim in verdict.claims[1:])
