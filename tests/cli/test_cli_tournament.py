"""``lineit tournament``: formats played locally, standings, brackets, replays and bad arguments."""

from __future__ import annotations

import json

import pytest
from cli_helpers import assert_one_line_error


def standings_rows(out: str) -> list[list[str]]:
    lines = out.splitlines()
    start = lines.index("Standings:") + 2
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def test_a_round_robin_prints_every_round_and_the_standings(lineit):
    outcome = lineit("tournament", "random", "greedy", "random", "--games-per-pairing", "2", "--in-process")

    assert outcome.status == 0, outcome.err
    assert outcome.out.startswith("Tournament: round robin, 3 bots, tables of 2, 2 games per pairing")
    assert outcome.out.count("has a bye") == 3  # three rounds, one bye each
    rows = standings_rows(outcome.out)
    assert sorted(row[1] for row in rows) == ["greedy", "random", "random#2"]
    assert [row[0] for row in rows] == ["1", "2", "3"]
    assert all(row[4] == "2" for row in rows)  # everyone played two matches
    assert outcome.err == ""


def test_swiss_json_is_the_whole_state_and_is_deterministic(lineit):
    args = ("tournament", "random", "greedy", "random", "greedy", "--format", "swiss", "--rounds", "2")
    first = lineit(*args, "--games-per-pairing", "2", "--seed", "5", "--in-process", "--json")
    again = lineit(*args, "--games-per-pairing", "2", "--seed", "5", "--in-process", "--json")

    assert first.status == 0, first.err
    report = json.loads(first.out)
    assert report["format"] == "lineit-tournament"
    assert len(report["state"]["rounds"]) == 2
    assert all(len(r["outcomes"]) == 2 for r in report["state"]["rounds"])
    assert [row["place"] for row in report["standings"]] == [1, 2, 3, 4]
    assert report == json.loads(again.out)


def test_single_elimination_at_tables_of_three_prints_a_bracket_and_writes_replays(lineit, tmp_path):
    replays = tmp_path / "replays"
    outcome = lineit(
        "tournament", "random", "greedy", "random", "greedy", "random", "greedy",
        "--format", "single", "--table-size", "3", "--games-per-pairing", "3",
        "--in-process", "--replays", replays,
    )  # fmt: skip

    assert outcome.status == 0, outcome.err
    assert "Bracket ([n] = seed):" in outcome.out
    assert "Champion: " in outcome.out and "(undecided)" not in outcome.out
    rows = standings_rows(outcome.out)
    assert rows[0][0] == "1" and rows[0][-1] == "champion"
    folders = sorted(path.name for path in replays.iterdir())
    assert folders and all(name.startswith("round-") for name in folders)
    games = sorted(replays.glob("round-*/game-*.json"))
    assert len(games) == 3 * len(folders)  # three games per match
    assert json.loads(games[0].read_text())["format"]


def test_double_elimination_ends_with_one_champion(lineit):
    outcome = lineit(
        "tournament", "random", "greedy", "random", "--format", "double", "--games-per-pairing", "2", "--in-process"
    )

    assert outcome.status == 0, outcome.err
    assert "Losers bracket, round 1" in outcome.out
    rows = standings_rows(outcome.out)
    assert [row[-1] for row in rows].count("champion") == 1


def test_double_elimination_at_tables_of_three_has_a_lower_bracket_and_one_champion(lineit):
    outcome = lineit(
        "tournament", "random", "greedy", "random", "greedy", "random",
        "--format", "double", "--table-size", "3", "--games-per-pairing", "3", "--in-process",
    )  # fmt: skip

    assert outcome.status == 0, outcome.err
    assert outcome.out.startswith("Tournament: double elimination, 5 bots, tables of 3")
    assert "Losers bracket, round 1" in outcome.out and "GF " in outcome.out
    rows = standings_rows(outcome.out)
    assert [row[-1] for row in rows].count("champion") == 1
    assert len(rows) == 5


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (("random",), ("needs 2 to",)),
        (("random", "nosuch.py"), ("nosuch.py",)),
        (("random", "greedy", "--table-size", "6"), ("2 to 5 seats",)),
        (("random", "greedy", "--table-size", "3"), ("needs 3 to",)),
        (("random", "greedy", "random", "--rounds", "2"), ("--rounds is for --format swiss",)),
        (("random", "greedy", "--format", "swiss", "--rounds", "9"), ("plays 1 to 1 rounds",)),
        (("random", "greedy", "--format", "knockout"), ("invalid choice",)),
        (("random", "greedy", "--games-per-pairing", "0"), ("games must be",)),
        (("random", "greedy", "--cycles", "0"), ("cycles must be from 1 to 10, not 0",)),  # was one cycle
        (("random", "greedy", "random", "--format", "double", "--table-size", "3", "--advance", "2"), ("1 to 1",)),
    ],
)
def test_bad_arguments_get_one_line_and_exit_status_two(lineit, argv, fragments):
    outcome = lineit("tournament", *argv, "--in-process")
    assert_one_line_error(outcome, 2, *fragments)
    assert outcome.out == ""


def test_an_unwritable_replay_folder_is_an_error_before_playing(lineit, bot_file):
    blocker = bot_file("occupied", "a file where the folder should be")
    outcome = lineit("tournament", "random", "greedy", "--in-process", "--replays", blocker / "sub")

    assert_one_line_error(outcome, 1, "cannot write replays into")
    assert outcome.out == ""
