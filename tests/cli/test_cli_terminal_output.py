"""What a bot (or a replay file from anywhere) writes reaches the terminal escaped: no escape
sequence acts (window title, OSC 52 clipboard, screen clear), no carriage return or newline
forges a line of the report, no bidi control reorders it. The hostile bots are in hostile/."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

import pytest

HOSTILE = Path(__file__).resolve().parent / "hostile"
PAYLOAD = (
    "\x1b]0;pwned title\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[H"
    "\rSandbox tier: none (forged)\nSandbox tier: none \u202edegrof\u2028\x9b31m"
)
VISIBLE = "\\x1b]52;c;cm0gLXJmIH4=\\x07"  # how the clipboard write shows in the report
# Anything a terminal obeys or that reorders or breaks a line, except the newline itself.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
BOTS = ["exception_message", "import_error", "illegal_action", "type_name"]


def assert_terminal_safe(text: str, *, tier_lines: int = 0) -> None:
    assert not RAW_CONTROL.findall(text), RAW_CONTROL.findall(text)
    forged = [line for line in text.split("\n") if line.startswith("Sandbox tier")]
    assert len(forged) == tier_lines, forged


@pytest.mark.parametrize("bot", BOTS)
def test_a_hostile_bots_text_is_escaped_in_the_sandboxed_match_report(lineit, bot):
    outcome = lineit("match", HOSTILE / f"{bot}.py", "random", "--games", "2")

    assert outcome.status == 3, outcome.err
    assert_terminal_safe(outcome.out, tier_lines=1)  # the report's own line, and no forged one
    assert_terminal_safe(outcome.err)
    assert VISIBLE in outcome.out  # shown, not dropped: the author can read what the bot sent
    assert outcome.err.startswith("lineit: error: bot ") and outcome.err.count("\n") == 1


def test_the_stderr_tail_is_escaped_a_line_at_a_time_under_its_prefix(lineit):
    outcome = lineit("match", HOSTILE / "exception_message.py", "random", "--games", "2")

    tail = outcome.out.split("stderr (last lines):\n", 1)[1].split("\n")
    assert "      | \\x1b]0;pwned title\\x07" + VISIBLE + "\\x1b[2J\\x1b[H\\rSandbox tier: none (forged)" in tail
    assert "      | Sandbox tier: none \\u202edegrof\\u2028\\x9b31m" in tail


@pytest.mark.parametrize("bot", BOTS)
def test_in_process_the_report_is_escaped_too(lineit, bot):
    outcome = lineit("match", HOSTILE / f"{bot}.py", "random", "--games", "2", "--in-process")

    assert outcome.status == 3
    assert_terminal_safe(outcome.out, tier_lines=1)
    # In-process, a bot's own prints reach stderr as they are (trusted code); lineit's line does not.
    last = outcome.err.rstrip("\n").split("\n")[-1]
    assert last.startswith("lineit: error: ") and not RAW_CONTROL.findall(last)


def test_a_bot_chosen_file_name_is_escaped_in_the_table_and_the_error(lineit, tmp_path: Path):
    named = tmp_path / "\x1b]0;title\x07\u202eevil\rSandbox tier: none.py"
    shutil.copyfile(HOSTILE / "exception_message.py", named)
    packaged = tmp_path / "\x1b[2Jzipped.zip"
    with zipfile.ZipFile(packaged, "w") as archive:
        archive.write(HOSTILE / "exception_message.py", "bot.py")

    for bot in (named, packaged):
        outcome = lineit("match", bot, "random", "--games", "2", "--in-process", "--json")
        assert outcome.status == 3
        assert json.loads(outcome.out)["entrants"][0]["name"] == bot.stem  # JSON keeps the name exactly
        outcome = lineit("match", bot, "random", "--games", "2")
        assert_terminal_safe(outcome.out, tier_lines=1)
        assert_terminal_safe(outcome.err)
    assert "\\x1b]0;title\\x07\\u202eevil\\rSandbox tier: none " in outcome.out or "\\x1b[2Jzipped" in outcome.out


def test_a_missing_file_with_a_hostile_name_is_one_escaped_line(lineit):
    outcome = lineit("match", "random", f"{PAYLOAD}.py")

    assert outcome.status == 2
    assert_terminal_safe(outcome.err)
    assert outcome.err.count("\n") == 1 and VISIBLE in outcome.err


def test_tournament_and_sprt_reports_escape_bot_names(lineit, tmp_path: Path):
    named = tmp_path / "\x1b]0;title\x07\u202eevil\rSandbox tier: none.py"
    shutil.copyfile(HOSTILE / "illegal_action.py", named)

    tournament = lineit("tournament", named, "random", "greedy", "--games-per-pairing", "2", "--in-process")
    sprt = lineit("sprt", named, "random", "--batch", "2", "--max-games", "2", "--in-process")

    for outcome in (tournament, sprt):
        assert outcome.status == 3, outcome.err
        assert_terminal_safe(outcome.out + outcome.err)
        assert "\\x1b]0;title\\x07\\u202eevil\\rSandbox tier: none" in outcome.out


@pytest.fixture
def hostile_replay(lineit, tmp_path: Path) -> Path:
    """A real replay whose names and failures were rewritten by someone hostile (it still
    replays: the engine checks the deck and the actions, not the names)."""
    assert lineit("match", "random", "random", "--games", "1", "--in-process", "--replays", tmp_path).status == 0
    path = tmp_path / "game-0000.json"
    document = json.loads(path.read_text())
    document["players"] = [PAYLOAD, "lone \ud800 surrogate"]
    document["meta"]["failures"] = [
        {"kind": PAYLOAD, "message": PAYLOAD, "seat": 0, "game": 0, "decision": 3},
        {"kind": "exception", "seat": PAYLOAD, "decision": PAYLOAD},
        {"kind": "exception", "seat": 1, "game": 0, "decision": -1},
    ]
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize(
    "options", [[], ["--turns"], ["--seat", "0"], ["--decision", "3", "--observation"], ["--seat", "1", "--turns"]]
)
def test_show_escapes_everything_a_replay_file_carries(lineit, hostile_replay, options):
    outcome = lineit("show", hostile_replay, "--no-color", *options)

    assert outcome.status == 0, outcome.err
    assert_terminal_safe(outcome.out)
    assert "Players: \\x1b]0;pwned title\\x07" in outcome.out
    assert "lone \\ud800 surrogate" in outcome.out  # printable, where it used to stop lineit


def test_show_lists_the_failures_of_a_replay_escaped(lineit, hostile_replay):
    outcome = lineit("show", hostile_replay, "--no-color")

    failures = outcome.out.split("\nFailures:\n", 1)[1].split("\n")
    assert failures[0].startswith("    \\x1b]0;pwned title\\x07") and ", decision 3: \\x1b]0;" in failures[0]
    assert failures[1].startswith("    seat \\x1b]0;pwned title") and failures[1].endswith(": exception")
    assert failures[2] == "    lone \\ud800 surrogate: exception"  # no message, no decision: kind only


def test_a_replay_with_a_hostile_action_fails_verify_and_show_in_one_escaped_line(lineit, hostile_replay):
    document = json.loads(hostile_replay.read_text())
    document["actions"][5][1] = PAYLOAD
    hostile_replay.write_text(json.dumps(document))

    verify = lineit("verify", hostile_replay)
    show = lineit("show", hostile_replay)

    assert verify.status == 1 and verify.out.startswith("FAIL")
    assert_terminal_safe(verify.out)
    assert show.status == 1 and show.out == ""
    assert_terminal_safe(show.err)
    assert show.err.startswith("lineit: error: ") and show.err.count("\n") == 1


def test_a_replay_file_cannot_fill_the_terminal_with_one_text(lineit, hostile_replay):
    """Its names, kinds and messages are cut (with how much was left out), and so is an error
    quoting one of its fields: one name of 100,000 characters was printed on every line."""
    document = json.loads(hostile_replay.read_text())
    document["players"] = ["x" * 100_000, "y"]
    document["meta"]["failures"] = [{"kind": "k" * 100_000, "message": "m" * 100_000, "seat": 0, "decision": 1}]
    hostile_replay.write_text(json.dumps(document))
    mangled = hostile_replay.with_name("rules.json")
    mangled.write_text(json.dumps({**document, "rules_version": "r" * 1_000_000}))

    show = lineit("show", hostile_replay, "--no-color")
    verify = lineit("verify", mangled)
    refused = lineit("show", mangled)

    assert show.status == 0, show.err
    assert max(len(line) for line in show.out.split("\n")) < 1_400
    assert "x" * 100 + "… (99,900 more characters)" in show.out
    assert verify.status == refused.status == 1
    assert len(verify.out) < 1_200 and "more characters)" in verify.out
    assert len(refused.err) < 2_100 and refused.err.count("\n") == 1


def test_the_replay_folder_named_in_a_report_is_escaped(lineit, tmp_path: Path):
    """The folder is the caller's, but a script may pass on a name from anywhere."""
    folder = tmp_path / "\x1b]0;title\x07out"

    match = lineit("match", HOSTILE / "exception_message.py", "random", "--games", "2", "--replays", folder)
    tournament = lineit(
        "tournament", "random", "greedy", "--games-per-pairing", "2", "--in-process", "--replays", folder
    )

    for outcome in (match, tournament):
        assert_terminal_safe(outcome.out, tier_lines=1 if outcome is match else 0)
        assert "\\x1b]0;title\\x07out/" in outcome.out
    assert "see it: lineit show " in match.out
