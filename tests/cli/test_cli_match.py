"""``lineit match``: a match between bots, its table, its JSON, its replays and its failures."""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

import pytest
from cli_helpers import EXAMPLE_BOT, assert_one_line_error

from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.engine import verify_replay

SYNTAX_ERROR_BOT = "def act(observation:\n    return 'pass'\n"
RAISING_BOT = "def act(observation):\n    if observation['round'] > 2:\n        raise RuntimeError('boom in act')\n    return observation['legal_actions'][0]\n"
ILLEGAL_BOT = "def act(observation):\n    return 'take 999 line'\n"
CHATTY_BOT = "def act(observation):\n    print('thinking out loud')\n    return observation['legal_actions'][-1]\n"


def test_a_match_between_built_in_bots_prints_the_results_table(lineit):
    outcome = lineit("match", "random", "random", "--games", "6", "--in-process")

    assert outcome.status == 0, outcome.err
    lines = outcome.out.splitlines()
    assert "2 bots, 6 games" in lines[0] and "ruleset standard" in lines[0]
    assert re.search(r", seed \d+$", lines[0])  # drawn from the system, printed to play it again
    header = next(line for line in lines if line.startswith("bot "))
    for column in ("games", "mean score (95% CI)", "win rate (95% CI)", "mean rank", "failures", "ms/move"):
        assert column in header
    rows = [line.split() for line in lines if line.startswith("random")]
    assert [row[0] for row in rows] == ["random", "random#2"]  # the same bot twice is told apart
    assert all(row[1] == "6" for row in rows)
    assert "Sandbox tier: in-process" in outcome.out
    assert "Failures" not in outcome.out
    assert outcome.err == ""  # no progress bar when stderr is not a terminal


def test_json_summary_parses_and_matches_the_games_played(lineit):
    outcome = lineit("match", "random", "random", "random", "--games", "6", "--seed", "3", "--in-process", "--json")

    assert outcome.status == 0
    summary = json.loads(outcome.out)
    assert summary["format"] == "lineit-match-summary"
    assert summary["match"] == {
        "num_players": 3,
        "games": 6,
        "ruleset": "standard",
        "seed": 3,
        "rotate_seats": True,
        "duplicate_deals": True,
    }
    assert summary["tier"] == "in-process"
    assert [entrant["games"] for entrant in summary["entrants"]] == [6, 6, 6]
    assert len(summary["games"]) == 6
    # Duplicate deals: each deck is played once per seat rotation.
    assert [game["deal"] for game in summary["games"]] == [0, 0, 0, 1, 1, 1]
    assert summary["games"][0]["entrants"] != summary["games"][1]["entrants"]
    # Mean scores in the summary are the means of the games' scores.
    entrant = 0
    scores = [g["scores"][g["entrants"].index(entrant)] for g in summary["games"]]
    assert summary["entrants"][entrant]["mean_score"] == pytest.approx(sum(scores) / len(scores))


def test_the_same_seed_gives_the_same_match(lineit):
    first = json.loads(
        lineit("match", "random", "random", "--games", "4", "--seed", "11", "--in-process", "--json").out
    )
    again = json.loads(
        lineit("match", "random", "random", "--games", "4", "--seed", "11", "--in-process", "--json").out
    )
    other = json.loads(
        lineit("match", "random", "random", "--games", "4", "--seed", "12", "--in-process", "--json").out
    )

    assert first["games"] == again["games"]
    assert first["games"] != other["games"]


def test_no_duplicate_and_no_rotate_change_the_schedule(lineit):
    outcome = lineit(
        "match", "random", "random", "--games", "4", "--no-duplicate", "--no-rotate", "--in-process", "--json"
    )
    games = json.loads(outcome.out)["games"]

    assert [game["deal"] for game in games] == [0, 1, 2, 3]
    assert all(game["entrants"] == [0, 1] for game in games)


def test_bga_ruleset_and_limits_reach_the_match(lineit):
    outcome = lineit(
        "match", "random", "random", "--games", "2", "--ruleset", "bga", "--move-seconds", "0.25",
        "--bank-seconds", "12", "--move-timeout", "3", "--memory-mb", "256", "--in-process", "--json",
    )  # fmt: skip
    summary = json.loads(outcome.out)

    assert summary["match"]["ruleset"] == "bga"
    assert summary["limits"]["move_seconds"] == 0.25
    assert summary["limits"]["bank_seconds"] == 12
    assert summary["limits"]["move_timeout_seconds"] == 3
    assert summary["limits"]["memory_mb"] == 256


def test_replays_are_written_one_per_game_sorted_and_verify(lineit, tmp_path: Path):
    folder = tmp_path / "out" / "replays"
    outcome = lineit("match", "random", "random", "--games", "12", "--in-process", "--replays", folder)

    assert outcome.status == 0
    files = sorted(folder.iterdir())
    assert [path.name for path in files] == [f"game-{index:04d}.json" for index in range(12)]
    for index, path in enumerate(files):
        document = json.loads(path.read_text())
        assert document["meta"]["game"] == index
        assert verify_replay(document).ok
    assert str(folder) in outcome.out


def test_progress_bar_on_stderr_when_forced(lineit):
    outcome = lineit("match", "random", "random", "--games", "4", "--in-process", "--progress")

    assert outcome.status == 0
    assert "4/4 games" in outcome.err
    assert "[" + "#" * 30 + "]" in outcome.err
    assert "Match:" in outcome.out and "games" not in outcome.err.split("4/4 games")[-1].strip()


def test_a_bot_that_prints_does_not_spoil_the_json(lineit, bot_file):
    chatty = bot_file("chatty.py", CHATTY_BOT)
    outcome = lineit("match", chatty, "random", "--games", "2", "--in-process", "--json")

    assert json.loads(outcome.out)["entrants"][0]["name"] == "chatty"
    assert "thinking out loud" in outcome.err


def test_a_bot_that_raises_forfeits_and_the_failures_follow_the_table(lineit, bot_file, tmp_path: Path):
    raiser = bot_file("raiser.py", RAISING_BOT)
    outcome = lineit("match", raiser, "random", "--games", "4", "--in-process", "--replays", tmp_path / "r")

    assert outcome.status == 3  # the match was played and reported; the exit status says a bot failed
    assert outcome.err == "lineit: error: bot 'raiser' failed in 4 of 4 games (exception, stopped)\n"
    table, failures = outcome.out.split("\nFailures (")
    assert "raiser" in table
    assert "raiser: exception in games 0-2: RuntimeError: boom in act" in failures
    assert "raiser: stopped in game 3: stopped after 3 failed games" in failures
    # The author sees their own stderr: the traceback of their code, without lineit's frames.
    assert "raise RuntimeError('boom in act')" in failures
    assert "botkit" not in failures
    assert "lineit show " in failures and "--decision" in failures
    summary_line = next(line for line in table.splitlines() if line.startswith("raiser"))
    assert summary_line.split()[1] == "4"


def test_an_illegal_move_is_reported_with_the_reason(lineit, bot_file):
    illegal = bot_file("illegal.py", ILLEGAL_BOT)
    outcome = lineit("match", illegal, "random", "--games", "2", "--in-process", "--json")

    summary = json.loads(outcome.out)
    kinds = {failure["kind"] for failure in summary["failures"]}
    assert kinds == {"illegal_move"}
    assert "'take 999 line'" in summary["failures"][0]["message"]
    assert summary["entrants"][0]["forfeits"] == 2


def test_a_bot_with_a_syntax_error_is_reported_in_one_line(lineit, bot_file):
    broken = bot_file("broken.py", SYNTAX_ERROR_BOT)
    outcome = lineit("match", broken, "random", "--games", "4", "--in-process")

    assert_one_line_error(outcome, 3, "bot 'broken' could not be loaded in any game", "SyntaxError")
    # The match still completes: the table shows the failures.
    assert "broken: load in games 0-2: SyntaxError" in outcome.out
    assert "broken: stopped in game 3" in outcome.out


def test_default_runs_in_the_sandbox(lineit, monkeypatch):
    calls = []

    def run_sandboxed_match(spec, sources, *, limits=None, on_game=None, tier=None, pin_cpu=True, stopped=frozenset()):
        calls.append((spec, [source.name for source in sources], limits))
        result = run_match(spec, [InProcessPlayer(source) for source in sources], limits=limits, on_game=on_game)
        result.tier = "test-tier"
        return result

    fake = types.ModuleType("lineit.sandbox")
    fake.SandboxUnavailable = type("SandboxUnavailable", (Exception,), {})
    fake.run_sandboxed_match = run_sandboxed_match
    monkeypatch.setitem(sys.modules, "lineit.sandbox", fake)

    outcome = lineit("match", "random", EXAMPLE_BOT, "--games", "2", "--move-timeout", "4")

    assert outcome.status == 0
    [(spec, names, limits)] = calls
    assert (spec.num_players, spec.games, names) == (2, 2, ["random", "example_bot"])
    assert limits.move_timeout_seconds == 4
    assert "Sandbox tier: test-tier" in outcome.out


def test_no_sandbox_is_a_one_line_error(lineit, monkeypatch):
    fake = types.ModuleType("lineit.sandbox")
    fake.SandboxUnavailable = type("SandboxUnavailable", (Exception,), {})

    def unavailable(*args, **kwargs):
        raise fake.SandboxUnavailable("no tier works: bubblewrap missing")

    fake.run_sandboxed_match = unavailable
    monkeypatch.setitem(sys.modules, "lineit.sandbox", fake)

    outcome = lineit("match", "random", "random", "--games", "2")

    assert_one_line_error(outcome, 1, "bubblewrap missing", "lineit doctor", "--in-process")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["match", "random"], "2 to 5 bots, got 1"),
        (["match", *["random"] * 6], "2 to 5 bots, got 6"),
        (["match", "random", "no-such-bot.py"], "no-such-bot.py: no such file"),
        (["match", "random", "random", "--games", "0"], "games must be from 1"),
        (["match", "random", "random", "--games", "many"], "invalid int value: 'many'"),
        (["match", "random", "random", "--seed", "-1"], "seed must be an integer"),
        (["match", "random", "random", "--ruleset", "chess"], "invalid choice: 'chess'"),
        (["match", "random", "random", "--move-timeout", "0.1"], "move_seconds cannot exceed"),
        (["match", "random", "random", "--memory-mb", "1"], "memory_mb must be"),
        (["match", "random", "random", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_bad_arguments_are_usage_errors(lineit, argv, fragment):
    assert_one_line_error(lineit(*argv, "--in-process"), 2, fragment)


def test_a_file_that_is_not_a_bot_is_a_usage_error(lineit, bot_file):
    text = bot_file("notes.txt", "hello")
    assert_one_line_error(lineit("match", text, "random", "--in-process"), 2, "a bot is a .py file")


def test_an_unwritable_replay_folder_is_an_error_before_playing(lineit, bot_file):
    blocker = bot_file("occupied", "a file where the folder should be")
    outcome = lineit("match", "random", "random", "--games", "2", "--in-process", "--replays", blocker / "sub")

    assert_one_line_error(outcome, 1, "cannot write replays into")
    assert outcome.out == ""


def test_default_match_runs_in_the_real_sandbox_or_says_why_not(lineit):
    from lineit.sandbox import detect_tier

    tier = detect_tier().name
    outcome = lineit("match", EXAMPLE_BOT, "random", "--games", "2", "--json")

    if tier is None:
        assert_one_line_error(outcome, 1, "lineit doctor")
    else:
        summary = json.loads(outcome.out)
        assert outcome.status == 0
        assert summary["tier"] == tier
        assert [entrant["failures"] for entrant in summary["entrants"]] == [0, 0]
