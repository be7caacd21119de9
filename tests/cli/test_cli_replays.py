"""``lineit show`` and ``lineit verify``, and the replay format of docs/replay.schema.json."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from cli_helpers import EXAMPLE_BOT, SCHEMA, assert_one_line_error

from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import resolve_bot
from lineit.cli.replayfile import MAX_REPLAY_BYTES
from lineit.engine import card_label, colour_of, describe, replay_game

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def play_replays(folder: Path, bots: list[str], *, games: int, ruleset: str = "standard") -> list[Path]:
    spec = MatchSpec(num_players=len(bots), games=games, ruleset=ruleset, seed=5)
    result = run_match(spec, [InProcessPlayer(resolve_bot(bot)) for bot in bots])
    paths = []
    for game in result.games:
        path = folder / f"{ruleset}-{len(bots)}p-{game.index}.json"
        path.write_text(json.dumps(game.replay))
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("replays")
    paths = play_replays(folder, ["random", str(EXAMPLE_BOT)], games=2)
    paths += play_replays(folder, ["random", "random", str(EXAMPLE_BOT)], games=3, ruleset="bga")
    paths += play_replays(folder, ["random"] * 4 + [str(EXAMPLE_BOT)], games=1)
    return paths


@pytest.fixture(scope="module")
def replay(replays: list[Path]) -> Path:
    return replays[0]


def test_every_replay_validates_against_the_published_schema(replays, lineit, tmp_path):
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    jsonschema.Draft202012Validator.check_schema(validator.schema)
    written = tmp_path / "written"
    lineit("match", "random", "random", "random", "--games", "3", "--in-process", "--replays", written)
    for path in [*replays, *sorted(written.iterdir())]:
        errors = [error.message for error in validator.iter_errors(json.loads(path.read_text()))]
        assert errors == [], path


def test_schema_rejects_what_is_not_a_replay(replay):
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    document = json.loads(replay.read_text())
    for field, bad in [("format", "chess-pgn"), ("actions", [[0, "draw 3"]]), ("deck", [1, 2, 3]), ("ruleset", "x")]:
        assert not validator.is_valid({**document, field: bad}), field
    assert not validator.is_valid({key: value for key, value in document.items() if key != "scores"})


def test_verify_accepts_good_replays(lineit, replays):
    outcome = lineit("verify", *replays)

    assert outcome.status == 0
    lines = outcome.out.splitlines()
    assert len(lines) == len(replays)
    assert all(line.startswith("ok") and "verified" in line for line in lines)


def test_verify_fails_when_any_file_does_not_verify(lineit, replay, tmp_path):
    document = json.loads(replay.read_text())
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps({**document, "scores": [score + 1 for score in document["scores"]]}))
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps({**document, "actions": [[0, "close"], *document["actions"][1:]]}))
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    mangled = tmp_path / "mangled.json"
    mangled.write_text(json.dumps({**document, "forfeits": 7}))

    outcome = lineit("verify", replay, tampered, illegal, garbage, mangled, tmp_path / "missing.json")

    assert outcome.status == 2  # two of the files are no replays at all: bad input, after every line
    lines = outcome.out.splitlines()
    assert lines[0].startswith("ok")
    assert lines[1].startswith("FAIL") and "recorded scores" in lines[1]
    assert lines[2].startswith("FAIL") and "action 0" in lines[2]
    assert lines[3].startswith("FAIL") and "not JSON" in lines[3]
    assert lines[4].startswith("FAIL") and "forfeits" in lines[4]
    assert lines[5].startswith("FAIL") and "no such file" in lines[5]
    assert lines[6] == "5 of 6 replays did not verify"
    assert "Traceback" not in outcome.out + outcome.err


def test_show_tells_the_game_turn_by_turn(lineit, replay):
    document = json.loads(replay.read_text())
    outcome = lineit("show", replay, "--no-color")

    assert outcome.status == 0
    text = outcome.out
    assert "\x1b[" not in text
    assert f"{len(document['actions'])} decisions" in text
    assert "== Round 1 of 26" in text and "== Round 26 of 26" in text
    for element in ("market", "jackpots", "draw pile", "line", "hand", "score", "Result:"):
        assert element in text
    # Every action is told in the engine's words, numbered in order.
    for index, (seat, action) in enumerate(document["actions"]):
        assert f"#{index:<4} {document['players'][seat]} {describe(action)}" in text
    # The first market is the top of the deck; every number card names its colour.
    first_market = " ".join(card_label(card) + (colour_of(card) or "")[:1] for card in document["deck"][:4])
    assert f"market    {first_market}\n" in text
    # The result names every player with the recorded score.
    final = replay_game(document)
    for seat, name in enumerate(document["players"]):
        assert f"{name} (seat {seat})  {final.scores()[seat]} points" in text


def test_show_describes_lines_with_direction_and_bet(lineit, replays):
    text = "\n".join(lineit("show", path, "--no-color").out for path in replays)

    assert re.search(r"line  (up|down): \d+[rbgy] \d+[rbgy]", text)
    assert re.search(r"bet [345]: (needs [1-5] more number cards? after it|safe, \+[345] at the close)", text)
    assert "line closes:" in text
    assert re.search(r"wins the (red|blue|green|yellow) jackpot", text)
    assert "go to the jackpots" in text


def test_show_uses_colour_only_when_asked_or_on_a_terminal(lineit, replay):
    coloured = lineit("show", replay, "--color").out
    plain = lineit("show", replay).out  # captured stdout is not a terminal

    assert "\x1b[31m" in coloured
    assert "\x1b[" not in plain
    assert ANSI.sub("", coloured) == plain


def test_show_one_decision_with_its_observation(lineit, replay):
    document = json.loads(replay.read_text())
    seat, action = document["actions"][10]
    outcome = lineit("show", replay, "--decision", "10", "--observation")

    assert outcome.status == 0
    assert "Decision 10" in outcome.out
    assert f"chosen: {action}" in outcome.out
    assert "legal actions:" in outcome.out
    observation = json.loads(outcome.out.split("(JSON):\n", 1)[1])
    assert observation["seat"] == seat
    assert action in observation["legal_actions"]
    assert "#11 " not in outcome.out  # only that decision


def test_show_follows_one_seat(lineit, replay):
    document = json.loads(replay.read_text())
    outcome = lineit("show", replay, "--seat", "1")
    everything = lineit("show", replay, "--turns")

    assert outcome.status == 0
    assert f"{document['players'][1]} (seat 1, you)" in outcome.out
    # --turns shows the position before every turn: more positions than following one seat.
    assert everything.out.count("draw pile") > outcome.out.count("draw pile") > 20


@pytest.mark.parametrize(
    ("argv", "status", "fragment"),
    [
        (["--seat", "9"], 2, "--seat 9: this replay has seats 0 to 1"),
        (["--decision", "100000"], 2, "--decision 100000: this replay has decisions 0 to"),
        (["--observation"], 2, "--observation needs --decision"),
        (["--seat", "one"], 2, "invalid int value"),
    ],
)
def test_show_bad_arguments(lineit, replay, argv, status, fragment):
    assert_one_line_error(lineit("show", replay, *argv), status, fragment)


def test_show_unreadable_replays(lineit, replay, tmp_path):
    missing = tmp_path / "missing.json"
    garbage = tmp_path / "garbage.json"
    garbage.write_text("[1, 2")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something-else"}))
    broken = tmp_path / "broken.json"
    document = json.loads(replay.read_text())
    broken.write_text(json.dumps({**document, "actions": document["actions"][:-5]}))

    # a file that is no replay at all is bad input (status 2); one that does not replay failed (1)
    assert_one_line_error(lineit("show", missing), 2, "missing.json: no such file")
    assert_one_line_error(lineit("show", garbage), 2, "garbage.json: not JSON")
    assert_one_line_error(lineit("show", other), 1, "not a Line-it replay")
    assert_one_line_error(lineit("show", broken), 1, "does not replay", "stop before the game is over")
    assert_one_line_error(lineit("show", tmp_path), 2, "is a folder")


HOSTILE_FILES = {
    "deep-array.json": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "deep-object.json": ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    "huge-number.json": ('{"seed": ' + "9" * 5000 + "}", "a number of more than 4,300 digits"),
    "string.json": ('"a replay"', "not a Line-it replay"),
    "nan.json": ("NaN", "not a Line-it replay"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_a_hostile_replay_file_is_one_line_and_status_2_never_a_crash(lineit, tmp_path, name):
    text, fragment = HOSTILE_FILES[name]
    path = tmp_path / name
    path.write_text(text)

    assert_one_line_error(lineit("show", path), 2, f"{name}: ", fragment)
    verify = lineit("verify", path)
    assert (verify.status, verify.err) == (2, "")
    assert verify.out.startswith(f"FAIL  {path}: ") and fragment in verify.out and verify.out.count("\n") == 1


def test_a_file_larger_than_any_replay_is_refused_before_it_is_read(lineit, tmp_path):
    huge = tmp_path / "huge.json"
    with huge.open("wb") as file:
        file.truncate(MAX_REPLAY_BYTES + 1)  # sparse: nothing is written

    assert_one_line_error(lineit("show", huge), 2, "huge.json: larger than 16 MiB, not a replay")
    assert "FAIL" in lineit("verify", huge).out


def test_what_is_not_a_regular_file_is_refused_without_reading_it(tmp_path):
    """A named pipe would block the reader for good, /dev/zero would be read until memory runs
    out: both are refused at once (a subprocess, so that the old behaviour fails the test instead
    of hanging it)."""
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    for path in (pipe, Path("/dev/zero")):
        for command in ("show", "verify"):
            done = subprocess.run(
                [sys.executable, "-m", "lineit.cli", command, str(path)],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 2, done.stderr  # bad input
            assert "not a regular file" in done.stdout + done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("forfeits", [[[0]], [{"seat": 0}], [True], [0.0]])
def test_a_field_of_a_type_the_engine_does_not_expect_is_refused_by_name(lineit, replay, tmp_path, forfeits):
    mangled = tmp_path / "mangled.json"
    mangled.write_text(json.dumps({**json.loads(replay.read_text()), "forfeits": forfeits}))

    assert_one_line_error(lineit("show", mangled), 1, "mangled.json: does not replay: 'forfeits' must be a list")
    assert lineit("verify", mangled).out.startswith(
        f"FAIL  {mangled}: unsigned; 'forfeits' must be a list of distinct seat"
    )


def test_verify_names_a_forfeit_unverified_and_refuses_a_forged_one(lineit, tmp_path):
    """The report of issue 14: a replay whose winner was marked as forfeiting, its ranks changed
    to match, verified. Now the forged forfeit fails, and a genuine one says what is not checked."""
    crasher = tmp_path / "crasher.py"
    crasher.write_text("def act(observation):\n    raise RuntimeError('no')\n")
    out = tmp_path / "out"
    assert (
        lineit("match", "random", crasher, "--games", "1", "--seed", "0", "--in-process", "--replays", out).status == 3
    )
    genuine = out / "game-0000.json"
    document = json.loads(genuine.read_text())
    assert document["forfeits"] == [1]
    forged = tmp_path / "forged.json"
    winner = 0
    document["forfeits"] = [0, 1]
    document["ranks"] = [2, 2]
    document["meta"]["failures"].append({"kind": "timeout", "seat": winner, "game": 0, "decision": 0})
    forged.write_text(json.dumps(document))

    outcome = lineit("verify", genuine, forged)

    assert outcome.status == 1
    first, second, _ = outcome.out.splitlines()
    assert first.startswith(f"ok    {genuine}: unsigned; verified: ") and "ranks [1, 2] given the forfeits" in first
    assert "unverified: seat 1 ('crasher') forfeited (exception at decision " in first and "the referee's word" in first
    assert second.startswith(
        f"FAIL  {forged}: unsigned; action 0: seat 0 forfeited at decision 0, so the stand-in plays"
    )
