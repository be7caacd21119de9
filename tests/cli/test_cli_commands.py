"""``lineit rules``, ``lineit doctor``, the entry point itself, and the documented example bot."""

from __future__ import annotations

import json
import subprocess
import sys
import types

import pytest
from cli_helpers import EXAMPLE_BOT, REPOSITORY, assert_one_line_error

from lineit.botkit import failures, limits
from lineit.botkit.interface import load_policy
from lineit.engine import RULES_VERSION, RULESETS, new_game


def test_rules_prints_the_version_the_rulesets_and_the_documents(lineit):
    outcome = lineit("rules", "--summary")

    assert outcome.status == 0
    assert f"rules version {RULES_VERSION}" in outcome.out
    for ruleset in RULESETS:
        assert f"  {ruleset} " in outcome.out
    assert "docs/rules.md" in outcome.out and "bot-interface.md" in outcome.out


def engine_line():
    from lineit.engine import IMPLEMENTATION, WHY_NOT_COMPILED

    return f"{IMPLEMENTATION} ({WHY_NOT_COMPILED or 'mypyc'})"


def fake_sandbox(monkeypatch, tier):
    fake = types.ModuleType("lineit.sandbox")
    fake.doctor_report = lambda: f"report: tier {tier}"
    fake.SandboxUnavailable = type("SandboxUnavailable", (Exception,), {})

    def require_tier():
        if tier is None:
            raise fake.SandboxUnavailable("no tier")
        return tier

    fake.require_tier = require_tier
    monkeypatch.setitem(sys.modules, "lineit.sandbox", fake)


def test_doctor_prints_the_report_and_succeeds_when_a_tier_works(lineit, monkeypatch):
    fake_sandbox(monkeypatch, "bubblewrap")
    outcome = lineit("doctor")

    assert outcome.status == 0
    assert outcome.out == f"engine: {engine_line()}\nreport: tier bubblewrap\n"


def test_doctor_fails_when_no_tier_works(lineit, monkeypatch):
    fake_sandbox(monkeypatch, None)
    outcome = lineit("doctor")

    assert "report: tier None" in outcome.out
    assert_one_line_error(outcome, 1, "no sandbox tier to run bots in")


@pytest.mark.parametrize(("argv", "status"), [([], 2), (["frobnicate"], 2), (["--help"], 0), (["match", "--help"], 0)])
def test_top_level_usage(lineit, argv, status):
    outcome = lineit(*argv)
    assert outcome.status == status
    if status:
        assert_one_line_error(outcome, status)
    else:
        assert "usage: lineit" in outcome.out


def test_the_installed_command_reports_errors_in_one_line():
    """The real process: exit status and stderr as a shell sees them."""
    command = [sys.executable, "-m", "lineit.cli"]
    bad = subprocess.run([*command, "verify", "/no/such/replay.json"], capture_output=True, text=True, timeout=60)
    usage = subprocess.run([*command, "match", "random"], capture_output=True, text=True, timeout=60)
    good = subprocess.run(
        [*command, "match", "random", "random", "--games", "2", "--in-process", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert bad.returncode == 2 and "FAIL" in bad.stdout and "Traceback" not in bad.stderr
    assert usage.returncode == 2 and usage.stderr.strip().count("\n") == 0
    assert usage.stderr.startswith("lineit: error: a match needs 2 to 5 bots")
    assert good.returncode == 0 and good.stdout.lstrip().startswith("{")


@pytest.mark.parametrize(("players", "ruleset"), [(2, "standard"), (3, "bga"), (5, "standard")])
def test_the_example_bot_plays_legal_games(players, ruleset):
    bots = [load_policy(EXAMPLE_BOT) for _ in range(players)]
    state = new_game(players, ruleset, seed=players * 31)
    for seat, bot in enumerate(bots):
        bot.start_game({"seat": seat, "num_players": players, "ruleset": ruleset, "game": 0})
    while not state.is_over:
        seat = state.current_player
        observation = state.observation(seat)
        action = bots[seat].act(observation)
        assert action in observation["legal_actions"]
        state.apply(action)
    for seat, bot in enumerate(bots):
        bot.end_game({"seat": seat, "game": 0, "scores": state.scores(), "ranks": state.ranks()})


def test_the_example_bot_beats_random_clearly(lineit):
    """The documentation promises a decent bot: over 20 duplicate games it must win most."""
    outcome = lineit("match", EXAMPLE_BOT, "random", "--games", "20", "--seed", "4", "--in-process", "--json")

    example, random_bot = json.loads(outcome.out)["entrants"]
    assert example["failures"] == 0
    assert example["win_rate"] >= 0.8
    assert example["mean_score"] > random_bot["mean_score"] + 10


def test_the_bot_interface_document_shows_the_example_bot_and_the_real_defaults():
    document = (REPOSITORY / "docs" / "bot-interface.md").read_text()

    for kind in failures.KINDS:
        assert f"`{kind}`" in document, kind
    for value in (limits.DEFAULT_MOVE_SECONDS, limits.DEFAULT_BANK_SECONDS, limits.DEFAULT_MOVE_TIMEOUT_SECONDS):
        assert f"{value:g} s" in document
    assert f"{limits.DEFAULT_STARTUP_SECONDS:g} s" in document
    assert f"{limits.DEFAULT_MEMORY_MB} MB" in document
    assert "docs/example_bot.py" in document
    observation = new_game(2, seed=1).observation(0)
    for field in observation:
        assert f"`{field}`" in document, field


def test_the_example_in_the_document_is_the_tested_file():
    document = (REPOSITORY / "docs" / "bot-interface.md").read_text()
    shown = document.split("## A complete example bot", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert shown == EXAMPLE_BOT.read_text()
