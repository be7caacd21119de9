"""The typed structures of lineit.botkit.types say exactly what the engine and the referee give a
bot: every key, and the type of every value, over random games of every table size, ruleset and
phase (so this fails if either side drifts); every field is documented; mypy accepts bots
written with them and catches a bot that misuses them."""

from __future__ import annotations

import ast
import inspect
import json
import os
import random
import subprocess
import sys
import types
import typing
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints, is_typeddict

import pytest

import lineit
from lineit.botkit import types as bot_types
from lineit.botkit.limits import Limits
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.types import FinalState, GameInfo, GameResult, Observation
from lineit.engine import MAX_PLAYERS, MIN_PLAYERS, RULESETS, new_game

REPOSITORY = Path(__file__).resolve().parents[2]
Seen = defaultdict[str, set[str]]


def conforms(value: Any, hint: Any, where: str, seen: Seen) -> list[str]:
    """The ways ``value`` differs from the type ``hint`` (empty: it conforms); ``seen`` collects,
    per place, which arm of a union and which literal was met, to show the games covered them."""
    if is_typeddict(hint):
        if type(value) is not dict:
            return [f"{where}: a {type(value).__name__}, not a dict"]
        hints = get_type_hints(hint)
        problems = []
        if set(value) != set(hints):
            problems.append(f"{where}: keys {sorted(set(value) ^ set(hints))} differ from {hint.__name__}")
        for key in hints.keys() & value.keys():
            problems += conforms(value[key], hints[key], f"{where}.{key}", seen)
        return problems
    origin = get_origin(hint)
    if origin is Literal:
        seen[where].add(repr(value))
        ok = value in get_args(hint) and type(value) in {type(arg) for arg in get_args(hint)}
        return [] if ok else [f"{where}: {value!r} is not one of {get_args(hint)}"]
    if origin in (types.UnionType, typing.Union):
        for arm in get_args(hint):
            if not conforms(value, arm, where, defaultdict(set)):
                seen[where].add("None" if arm is type(None) else getattr(arm, "__name__", repr(arm)))
                return conforms(value, arm, where, seen)
        return [f"{where}: {value!r} matches none of {hint}"]
    if origin is list:
        if type(value) is not list:
            return [f"{where}: a {type(value).__name__}, not a list"]
        (item,) = get_args(hint)
        return [
            problem for index, element in enumerate(value) for problem in conforms(element, item, f"{where}[]", seen)
        ]
    if hint is float:
        return [] if type(value) in (int, float) else [f"{where}: {value!r} is not a number"]
    if hint is type(None):
        return [] if value is None else [f"{where}: {value!r} is not None"]
    return [] if type(value) is hint else [f"{where}: {value!r} is a {type(value).__name__}, not {hint.__name__}"]


def observations_of_random_games() -> list[dict[str, Any]]:
    """Every seat's observation at every decision of random games, and at their end: every table
    size, both rulesets."""
    rng = random.Random(14)
    found = []
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for ruleset in RULESETS:
            for game in range(2):
                state = new_game(players, ruleset, seed=players * 100 + game)
                while True:
                    found.extend(state.observation(seat) for seat in range(players))
                    if state.is_over:
                        break
                    legal = state.legal_actions()
                    state.apply(legal[rng.randrange(len(legal))])
    return found


def expected_variants(hint: Any, where: str, expected: Seen) -> None:
    """Every union arm and every literal the declaration allows, per place (what random games
    must show at least once)."""
    if is_typeddict(hint):
        for key, value in get_type_hints(hint).items():
            expected_variants(value, f"{where}.{key}", expected)
    elif get_origin(hint) is Literal:
        expected[where].update(repr(arg) for arg in get_args(hint))
    elif get_origin(hint) in (types.UnionType, typing.Union):
        for arm in get_args(hint):
            expected[where].add("None" if arm is type(None) else getattr(arm, "__name__", repr(arm)))
            if arm is not type(None):
                expected_variants(arm, where, expected)
    elif get_origin(hint) is list:
        expected_variants(get_args(hint)[0], f"{where}[]", expected)


def test_the_engines_observations_are_exactly_what_observation_declares() -> None:
    seen: Seen = defaultdict(set)
    observations = observations_of_random_games()
    for observation in observations:
        assert conforms(observation, Observation, "observation", seen) == []
        # What the sandbox sends is the same data after JSON: nothing a JSON round trip changes.
        assert json.loads(json.dumps(observation)) == observation

    expected: Seen = defaultdict(set)
    expected_variants(Observation, "observation", expected)
    # The random games went through every phase, both rulesets, every literal and both sides of
    # every "or None" (a bet and none, a direction and none, a turn and a final and neither).
    assert {place: seen[place] for place in expected} == dict(expected)
    assert {observation["num_players"] for observation in observations} == set(range(MIN_PLAYERS, MAX_PLAYERS + 1))


def test_a_drifting_observation_is_caught() -> None:
    """The check is not vacuous: a key more, a key less, a tuple for a list, a bool for an int."""
    observation = new_game(3, "bga", seed=5).observation(0)
    for change in (
        lambda o: o.update(extra=1),
        lambda o: o.pop("draw_count"),
        lambda o: o.update(market=tuple(o["market"])),
        lambda o: o.update(seat=True),
        lambda o: o.update(phase="bet"),
        lambda o: o["players"][0].update(direction="sideways"),
        lambda o: o.update(turn={"took": 1, "played": False, "closed": False}),
    ):
        changed = json.loads(json.dumps(observation))
        change(changed)
        assert conforms(changed, Observation, "observation", defaultdict(set)) != []


class Recorder:
    """A player (the referee's Player interface) that keeps what start_game and end_game get."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.infos: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []

    def start(self, timeout: float) -> None:
        pass

    def start_game(self, info: dict[str, Any], timeout: float) -> None:
        self.infos.append(json.loads(json.dumps(info)))

    def act(self, observation: dict[str, Any], timeout: float) -> Any:
        return observation["legal_actions"][-1]

    def end_game(self, result: dict[str, Any], timeout: float) -> None:
        self.results.append(json.loads(json.dumps(result)))

    def stderr_tail(self) -> str:
        return ""

    def close(self) -> None:
        pass

    def fresh(self) -> Recorder:
        return self  # one recorder sees every game of its entrant, whichever lane plays it


@pytest.mark.parametrize(("players", "ruleset"), [(2, "standard"), (5, "bga")])
def test_start_game_and_end_game_get_exactly_game_info_and_game_result(players: int, ruleset: str) -> None:
    recorders = [Recorder(f"r{seat}") for seat in range(players)]
    run_match(MatchSpec(num_players=players, games=players, ruleset=ruleset), recorders, limits=Limits())
    seen: Seen = defaultdict(set)
    for recorder in recorders:
        assert len(recorder.infos) == len(recorder.results) == players
        for info in recorder.infos:
            assert conforms(info, GameInfo, "info", seen) == []
        for result in recorder.results:
            assert conforms(result, GameResult, "result", seen) == []


def test_every_field_is_documented() -> None:
    tree = ast.parse(inspect.getsource(bot_types))
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    assert {node.name for node in classes} >= {"Observation", "PlayerView", "TurnState", "GameInfo", "GameResult"}
    for node in classes:
        declared = set(get_type_hints(getattr(bot_types, node.name)))
        documented = {
            field.target.id
            for field, after in zip(node.body, node.body[1:])
            if isinstance(field, ast.AnnAssign)
            and isinstance(field.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
            and after.value.value.strip()
        }
        assert documented == declared, node.name
    # FinalState is made by a call ("pass" is a keyword): its docstring names each key.
    for key in get_type_hints(FinalState):
        assert f"``{key}``:" in (FinalState.__doc__ or "")


def test_the_documents_observation_section_refers_to_the_types() -> None:
    document = (REPOSITORY / "docs" / "bot-interface.md").read_text(encoding="utf-8")
    section = document.split("## The observation", 1)[1].split("\n## ", 1)[0]
    assert "lineit.botkit.types" in section
    for name in ("Observation", "PlayerView", "TurnState", "FinalState"):
        assert f"`{name}`" in section, name


def mypy(folder: Path, *files: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """mypy --strict as a bot author runs it in the bot's folder, with none of this repository's
    configuration: the kit importable from its source, its own errors silenced as those of an
    installed package are (only the bot's files are judged)."""
    environment = {**os.environ, "MYPYPATH": str(Path(lineit.__file__).resolve().parents[1])}
    options = ["--strict", "--config-file", "", "--follow-imports", "silent", "--cache-dir", str(cache)]
    command = [sys.executable, "-m", "mypy", *options, *files]
    return subprocess.run(command, cwd=folder, env=environment, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.mark.parametrize(
    ("folder", "files"),
    [
        ("lineit/starter", ["bot.py", "test_bot.py"]),
        ("docs/examples/package_bot", ["bot.py", "evaluation.py", "tables/__init__.py"]),
        ("docs", ["example_bot.py"]),
    ],
)
def test_mypy_accepts_the_bots_written_with_the_types(folder: str, files: list[str], mypy_cache: Path) -> None:
    done = mypy(REPOSITORY / folder, *files, cache=mypy_cache)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_catches_a_bot_that_misreads_the_observation(tmp_path: Path, mypy_cache: Path) -> None:
    (tmp_path / "bot.py").write_text(
        "from lineit.botkit.types import GameInfo, Observation\n\n\n"
        "class Bot:\n"
        "    def start_game(self, info: GameInfo) -> None:\n"
        "        self.seat: int = info['seats']\n\n"
        "    def act(self, observation: Observation) -> str:\n"
        "        hand = observation['players'][0]['hand']\n"
        "        return observation['legal_actions'][0] + hand[0]\n"
    )
    done = mypy(tmp_path, "bot.py", cache=mypy_cache)
    assert done.returncode == 1
    assert 'TypedDict "GameInfo" has no key "seats"' in done.stdout
    assert 'Unsupported operand types for + ("str" and "int")' in done.stdout
