"""The engine inside a bot: in every working tier a sandboxed bot imports the referee's own
engine (the same compiled build, the same rules version), read-only, and simulates with it; a
bot that tries to change it changes nothing for the referee or the other bots."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from sandbox_helpers import FAST, hostile_bot, play_one_game

import lineit.engine
from lineit.botkit.limits import Limits
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource, builtin_source
from lineit.engine import RULES_VERSION, new_game
from lineit.sandbox import SandboxedPlayer, run_sandboxed_match
from lineit.sandbox.runtime import runtime_folder

HERE = Path(__file__).resolve().parent
REPORT_BOT = HERE / "engine_bots" / "engine_report.py"
ENGINE = Path(lineit.engine.__file__).resolve().parent
DOCS = HERE.parents[1] / "docs"


def engine_files(folder: Path) -> dict[str, str]:
    """sha256 of every file of an engine folder (the byte-compiled caches aside)."""
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in folder.iterdir() if path.is_file()}


def report(tier: str) -> dict:
    """What a sandboxed bot says of the engine it imported, after simulating one decision."""
    player = SandboxedPlayer(BotSource(name="report", path=REPORT_BOT), Limits(), tier=tier)
    try:
        player.start(10)
        player.start_game({"game": 0, "seat": 0, "limits": Limits().to_dict()}, 5)
        observation = new_game(2, seed=3).observation(0)
        chosen = player.act(observation, 5)
        assert chosen in observation["legal_actions"]
        return json.loads(player.act({**observation, "legal_actions": ["report"]}, 5))
    finally:
        player.cleanup()


def test_a_sandboxed_bot_imports_the_referees_compiled_engine_and_rules(tier: str) -> None:
    found = report(tier)

    # The referee's implementation (the suite runs the compiled engine), its rules version, and
    # byte for byte its files: the compiled modules themselves, not a pure-Python fallback
    assert found["implementation"] == lineit.engine.IMPLEMENTATION == "compiled"
    assert found["state_module"].endswith(".so")
    assert found["rules_version"] == RULES_VERSION
    assert found["files"] == engine_files(ENGINE)


def test_a_referee_on_the_engines_source_gives_its_bots_the_source_too(tier: str) -> None:
    # Given a referee process that runs the engine's Python source (LINEIT_PURE_ENGINE=1)
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import test_engine_in_bot as t; "
        "import lineit.engine; print(json.dumps([lineit.engine.IMPLEMENTATION, t.report(sys.argv[2])]))"
    )
    environment = {**os.environ, "LINEIT_PURE_ENGINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(HERE), tier], env=environment, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    referee, found = json.loads(done.stdout.splitlines()[-1])

    # Then its bots simulate with the same source, not with the compiled modules beside it
    assert referee == found["implementation"] == "python"
    assert found["state_module"] == "state.py"
    assert not any(name.endswith(".so") for name in found["files"])


def test_a_bot_cannot_change_the_engine_for_the_referee_or_the_other_bots(tier: str, tmp_path: Path) -> None:
    # Given a bot that tries to write, replace, remove and add engine files
    source = hostile_bot("tamper_engine", tmp_path / "bots")

    result = play_one_game(tier, source, FAST)

    # Then every attempt was refused, the game went on, and the engine every sandbox imports is
    # still the referee's, file for file
    assert [(failure.kind, failure.seat) for failure in result.failures] == [("exception", 0)]
    assert re.search(r"PermissionError: every change to the engine was refused", result.failures[0].message)
    assert "ESCAPED" not in result.failures[0].message
    assert len(result.games[0].replay["actions"]) > 0 and len(result.games[0].scores) == 2
    assert engine_files(runtime_folder() / "lib" / "lineit" / "engine") == engine_files(ENGINE)
    assert report(tier)["files"] == engine_files(ENGINE)


def test_the_search_bot_of_the_docs_is_the_file_it_shows() -> None:
    text = (DOCS / "bot-interface.md").read_text()
    block = re.search(r"<!-- search-bot-example: docs/search_bot_example.py -->\n```python\n(.*?)```", text, re.S)
    assert block is not None
    assert block.group(1) == (DOCS / "search_bot_example.py").read_text()


def test_the_search_bot_of_the_docs_plays_sandboxed_and_beats_random(tier: str) -> None:
    source = BotSource(name="docs-search", path=DOCS / "search_bot_example.py")
    spec = MatchSpec(num_players=2, games=8, seed=21)
    limits = Limits(move_seconds=0.02, move_timeout_seconds=2, bank_seconds=40)

    result = run_sandboxed_match(spec, [source, builtin_source("random")], limits=limits, tier=tier)

    assert result.failures == []
    # It thinks for a slice of wall time, so how well it plays depends on the machine's load: it
    # must win most games from both seats of the duplicate deals, and score far more in all.
    mine = [game.scores[game.seats.index(0)] for game in result.games]
    theirs = [game.scores[1 - game.seats.index(0)] for game in result.games]
    assert sum(a > b for a, b in zip(mine, theirs)) >= 6
    assert sum(mine) > 2 * max(1, sum(theirs))
