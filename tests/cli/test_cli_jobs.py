"""``--jobs N``: match, sprt and tournament play games in parallel worker processes, and print
and write exactly what ``--jobs 1`` prints and writes for the same seed (the ms/move timings
aside, which no two runs share)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import EXAMPLE_BOT, assert_one_line_error

from lineit.botkit.parallel import MIN_SHARD_GAMES

# A bot that fails one game in four (an exception), deterministic: with --max-failures 3 it is
# stopped after its third failed game, which a parallel run must find as one process does.
FLAKY_BOT = """\
class Bot:
    def start_game(self, info):
        self.game = info["game"]

    def act(self, observation):
        if self.game % 4 == 1:
            raise ValueError("bad luck")
        legal = observation["legal_actions"]
        return legal[len(observation["market"]) % len(legal)]
"""

# An in-process bot that leaves a file named after the process that plays it.
PID_BOT = """\
import os
from pathlib import Path


def act(observation):
    Path(os.environ["PID_FOLDER"], str(os.getpid())).touch()
    return observation["legal_actions"][0]
"""


CHATTY_BOT = """\
def act(observation):
    print("hello from a bot")
    return observation["legal_actions"][0]
"""


def without_timings(summary: dict) -> dict:
    """The JSON summary without what differs from run to run: time measured, and where the
    replays went."""
    for entrant in summary["entrants"]:
        for key in [key for key in entrant if key.endswith("_ms") or "seconds" in key]:
            del entrant[key]
    summary.pop("replays", None)
    return summary


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_a_sandboxed_match_with_two_jobs_is_the_match_with_one(lineit, tmp_path: Path):
    games = 3 * MIN_SHARD_GAMES  # three shards of whole deals: the second and third wait their turn
    runs = {}
    for jobs in (1, 2):
        outcome = lineit(
            "match", EXAMPLE_BOT, "greedy", "random", "--games", games, "--seed", 5, "--jobs", jobs,
            "--replays", tmp_path / f"jobs{jobs}", "--json",
        )  # fmt: skip
        assert outcome.status == 0, outcome.err
        runs[jobs] = without_timings(json.loads(outcome.out))

    assert runs[1] == runs[2]
    assert len(runs[1]["games"]) == games
    replays = files_of(tmp_path / "jobs1")
    assert len(replays) == games
    assert replays == files_of(tmp_path / "jobs2")


def test_a_bot_stopped_after_its_failures_is_stopped_at_the_same_game_with_two_jobs(lineit, bot_file, tmp_path):
    """The third failure stops the flaky bot for the rest of the match: in parallel, the games a
    worker played with it after that are played again with it stopped."""
    flaky = bot_file("flaky.py", FLAKY_BOT)
    runs = {}
    for jobs in (1, 2):
        outcome = lineit(
            "match", flaky, "random", "--games", 40, "--max-failures", 3, "--jobs", jobs, "--seed", 11,
            "--replays", tmp_path / f"jobs{jobs}", "--json",
        )  # fmt: skip
        assert outcome.status == 3, outcome.err
        runs[jobs] = without_timings(json.loads(outcome.out))

    assert runs[1] == runs[2]
    failures = [(failure["game"], failure["kind"]) for failure in runs[1]["failures"]]
    assert failures[:4] == [(1, "exception"), (5, "exception"), (9, "exception"), (10, "stopped")]
    assert {kind for game, kind in failures if game >= 10} == {"stopped"}
    assert files_of(tmp_path / "jobs1") == files_of(tmp_path / "jobs2")


def test_sprt_with_two_jobs_stops_at_the_same_batch_with_the_same_result(lineit):
    runs = {}
    for jobs in (1, 2):
        outcome = lineit(
            "sprt", "greedy", "random", "--batch", 10, "--max-games", 60, "--jobs", jobs, "--seed", 3, "--json"
        )  # fmt: skip
        assert outcome.status == 0, outcome.err
        runs[jobs] = json.loads(outcome.out)

    assert runs[1] == runs[2]
    assert runs[1]["games"] == 60


def test_sprt_decides_after_the_same_batch_whatever_the_jobs(lineit):
    """heuristic against random is decided within a few batches: the batches played ahead by
    the other workers are thrown away, not counted."""
    runs = {}
    for jobs in (1, 2, 3):
        outcome = lineit(
            "sprt", "heuristic", "random", "--in-process", "--batch", 10, "--jobs", jobs, "--seed", 3, "--json"
        )  # fmt: skip
        assert outcome.status == 0, outcome.err
        runs[jobs] = json.loads(outcome.out)

    assert runs[1]["result"] == "H1"
    assert runs[1]["games"] < 200
    assert runs[1] == runs[2] == runs[3]


def test_a_sandboxed_tournament_with_two_jobs_is_the_tournament_with_one(lineit, tmp_path: Path):
    runs = {}
    for jobs in (1, 2):
        outcome = lineit(
            "tournament", "random", "greedy", "heuristic", "random", "--format", "swiss", "--rounds", 2,
            "--games-per-pairing", 12, "--jobs", jobs, "--seed", 7, "--replays", tmp_path / f"jobs{jobs}", "--json",
        )  # fmt: skip
        assert outcome.status == 0, outcome.err
        runs[jobs] = outcome.out

    assert runs[1] == runs[2]
    replays = files_of(tmp_path / "jobs1")
    assert len(replays) == 2 * 2 * 12  # two rounds of two tables
    assert replays == files_of(tmp_path / "jobs2")


def test_in_process_bots_with_jobs_play_in_worker_processes(lineit, bot_file, tmp_path: Path, monkeypatch):
    """--in-process defaults to one job, in this process; --jobs 2 plays its games in two
    worker processes, with the same results."""
    bot = bot_file("pid_bot.py", PID_BOT)
    folders = {jobs: tmp_path / f"pids{jobs}" for jobs in (None, 2)}
    runs = {}
    for jobs, folder in folders.items():
        folder.mkdir()
        monkeypatch.setenv("PID_FOLDER", str(folder))  # the workers inherit it
        option = [] if jobs is None else ["--jobs", jobs]
        outcome = lineit("match", bot, "random", "--games", 40, "--seed", 9, "--in-process", *option, "--json")
        assert outcome.status == 0, outcome.err
        runs[jobs] = without_timings(json.loads(outcome.out))

    assert runs[None] == runs[2]
    assert [path.name for path in folders[None].iterdir()] == [str(os.getpid())]
    workers = {int(path.name) for path in folders[2].iterdir()}
    assert len(workers) == 2 and os.getpid() not in workers


@pytest.mark.parametrize(
    "command", [["match", "random", "random"], ["sprt", "random", "greedy"], ["tournament", "random", "greedy"]]
)
@pytest.mark.parametrize("value", ["0", "-1", "x", "1.5", "100000"])
def test_a_bad_jobs_value_is_a_usage_error(lineit, command, value):
    outcome = lineit(*command, "--in-process", "--jobs", value)

    assert_one_line_error(outcome, 2, "argument --jobs: must be a whole number", repr(value))
    assert outcome.out == ""


def test_the_help_of_each_command_says_what_jobs_does(lineit):
    for command in ("match", "sprt", "tournament"):
        help_text = " ".join(lineit(command, "--help").out.split())
        assert "--jobs N" in help_text
        assert f"(default: the usable cores, {len(os.sched_getaffinity(0))} here; 1 with" in help_text
    assert "it stops after the same batch, with the same result, for any --jobs" in " ".join(
        lineit("sprt", "--help").out.split()
    )


def test_what_in_process_bots_print_in_the_workers_stays_out_of_the_json(bot_file):
    """A worker's standard output is lineit's: a bot's print() there would land in the JSON."""
    chatty = bot_file("chatty.py", CHATTY_BOT)
    played = subprocess.run(
        [sys.executable, "-m", "lineit.cli", "match", chatty, "random", "--games", "40", "--in-process"]
        + ["--jobs", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert played.returncode == 0, played.stderr
    assert len(json.loads(played.stdout)["games"]) == 40
    assert "hello from a bot" in played.stderr
