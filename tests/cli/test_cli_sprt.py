"""``lineit sprt``: deal pairs between a new and an old bot until the sequential test decides."""

from __future__ import annotations

import json

import pytest
from cli_helpers import assert_one_line_error

RAISING_BOT = "def act(observation):\n    raise RuntimeError('broken')\n"


def test_a_much_stronger_bot_is_accepted_as_better_in_the_sandbox(lineit):
    outcome = lineit("sprt", "heuristic", "random", "--batch", "10")

    assert outcome.status == 0, outcome.err
    lines = outcome.out.splitlines()
    assert lines[0].startswith("SPRT: heuristic (new) against random (old), standard, H0 +0 Elo, H1 +10 Elo")
    assert lines[-1].startswith("H1 accepted: heuristic is stronger than random")
    games = int(lines[1].split()[0])
    assert games % 10 == 0 and games <= 100  # decided after a few batches, not at --max-games
    assert "failures" not in outcome.out


def test_a_weaker_bot_is_not_accepted(lineit):
    outcome = lineit("sprt", "random", "heuristic", "--in-process", "--json")

    assert outcome.status == 0, outcome.err
    summary = json.loads(outcome.out)
    assert summary["result"] == "H0"
    assert summary["llr"] <= summary["llr_bounds"][0]
    assert summary["games"] == 2 * sum(summary["pairs"])
    assert summary["pairs"][0] > 0.9 * sum(summary["pairs"])  # random loses nearly every pair
    assert summary["elo"] is None or summary["elo"] < -200


def test_without_a_decision_it_says_so_after_max_games(lineit):
    outcome = lineit("sprt", "random", "random", "--in-process", "--max-games", "40", "--batch", "20", "--json")

    assert outcome.status == 0, outcome.err
    summary = json.loads(outcome.out)
    assert (summary["result"], summary["games"], summary["new"], summary["old"]) == (
        "undecided",
        40,
        "random",
        "random#2",
    )


def test_progress_lines_go_to_stderr(lineit):
    outcome = lineit("sprt", "heuristic", "random", "--in-process", "--batch", "20", "--progress")

    progress = [line for line in outcome.err.splitlines() if line.startswith("sprt: ")]
    assert progress and progress[0].startswith("sprt: 20 games: new scores")
    assert "LLR" in progress[-1]


def test_a_failing_new_bot_loses_its_games_and_the_failures_are_counted(lineit, bot_file):
    broken = bot_file("broken.py", RAISING_BOT)

    outcome = lineit("sprt", broken, "random", "--in-process", "--batch", "10", "--max-failures", "1000")

    assert outcome.status == 3, outcome.err  # the verdict is printed, and the exit says a bot failed
    assert "failures (each a lost game): broken" in outcome.out
    assert outcome.err == "lineit: error: bots failed in some games (each a lost game): 'broken' 40\n"
    assert outcome.out.splitlines()[-1].startswith("H0 accepted")


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (["--elo0", "10", "--elo1", "5"], "elo0 must be below elo1"),
        (["--alpha", "0.7"], "alpha must be between 0 and 0.5"),
        (["--batch", "3"], "--batch must be an even number"),
        (["--batch", "200000", "--max-games", "200000"], "--batch must be an even number of games from 2 to 100,000"),
        (["--elo0", "-200000", "--elo1", "0"], "elo0 and elo1 must be from -2000 to 2000"),
        (["--max-games", "4", "--batch", "10"], "--max-games must be from --batch"),
        (["--seed", "-1"], "--seed must be from 0"),
        (["--move-seconds", "-1"], "move_seconds"),
    ],
)
def test_bad_arguments_get_one_line_and_status_2(lineit, arguments, fragment):
    assert_one_line_error(lineit("sprt", "random", "greedy", "--in-process", *arguments), 2, fragment)


def test_a_bot_that_names_nothing_is_a_usage_error(lineit):
    assert_one_line_error(lineit("sprt", "no_such_bot", "random"), 2, "no_such_bot")


ONCE_BOT = """
import pathlib

MARKER = pathlib.Path(__file__).with_suffix(".loaded")
if MARKER.exists():
    raise ImportError("this bot loads only once")
MARKER.write_text("loaded")


def act(observation):
    return observation["legal_actions"][0]
"""


def test_a_run_that_fails_midway_still_reports_what_it_played(lineit, bot_file):
    once = bot_file("once.py", ONCE_BOT)

    outcome = lineit("sprt", once, "random", "--in-process", "--batch", "2", "--json")

    assert outcome.status == 3  # a bot that stopped loading: a bot's failure, not lineit's
    summary = json.loads(outcome.out)
    assert (summary["result"], summary["games"]) == ("aborted", 2)
    assert "this bot loads only once" in outcome.err and "Traceback" not in outcome.err


def test_an_odd_max_games_plays_whole_deal_pairs_only(lineit):
    outcome = lineit("sprt", "random", "random", "--in-process", "--batch", "2", "--max-games", "3", "--json")

    assert outcome.status == 0, outcome.err
    assert (json.loads(outcome.out)["games"], json.loads(outcome.out)["result"]) == (2, "undecided")


def test_different_seeds_play_different_deals(lineit):
    runs = [
        json.loads(
            lineit("sprt", "random", "greedy", "--in-process", "--max-games", "40", "--seed", seed, "--json").out
        )
        for seed in (0, 1)
    ]
    assert runs[0]["pairs"] != runs[1]["pairs"] or runs[0]["llr"] != runs[1]["llr"]
