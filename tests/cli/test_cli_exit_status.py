"""What ``lineit`` promises with its exit status (the table in ``lineit --help`` and the README):
0 all good, 1 the command failed, 2 the command line or an input is refused (nothing played),
3 a bot failed in at least one game (the results are printed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from cli_helpers import REPOSITORY, assert_one_line_error

from lineit.cli import errors
from lineit.cli.main import INTERNAL_ERROR_EXIT

FAILING_BOTS = {
    "illegal_move": "def act(observation):\n    return 'take 999 line'\n",
    "exception": "def act(observation):\n    raise ValueError('gave up')\n",
    "timeout": "import time\n\ndef act(observation):\n    time.sleep(0.5)\n    return observation['legal_actions'][0]\n",
    "protocol": "def act(observation):\n    return 42\n",
}
LATE_BOT = """
def act(observation):
    if observation["round"] > 3:
        raise ValueError("fails late")
    return observation["legal_actions"][0]
"""


def assert_bot_failed(outcome, fragment: str) -> None:
    """Exit 3, and after the report one line on stderr that says which bot failed."""
    assert outcome.status == errors.FORFEIT_EXIT == 3, outcome.err
    assert outcome.err.count("\n") == 1 and outcome.err.startswith("lineit: error: "), outcome.err
    assert fragment in outcome.err


def test_a_clean_match_exits_0(lineit):
    assert lineit("match", "random", "greedy", "--games", "2", "--in-process").status == 0


@pytest.mark.parametrize("kind", sorted(FAILING_BOTS))
def test_a_match_in_which_a_bot_forfeited_exits_3_after_the_full_report(lineit, bot_file, kind):
    bot = bot_file(f"{kind}_bot.py", FAILING_BOTS[kind])

    outcome = lineit(
        "match", bot, "random", "--games", "2", "--in-process", "--move-seconds", "0.05", "--move-timeout", "0.1"
    )

    assert "Sandbox tier: in-process" in outcome.out and f"{kind}_bot: {kind} in game" in outcome.out  # the report
    assert_bot_failed(outcome, f"bot '{kind}_bot' failed in 2 of 2 games ({kind})")


def test_one_forfeited_game_of_many_is_enough_and_json_still_parses(lineit, bot_file):
    late = bot_file("late.py", LATE_BOT)

    outcome = lineit("match", late, "random", "--games", "4", "--in-process", "--max-failures", "10", "--json")

    summary = json.loads(outcome.out)
    assert summary["entrants"][0]["forfeits"] >= 1
    assert_bot_failed(outcome, "bot 'late' failed in")


def test_a_bot_that_never_loads_exits_3(lineit, bot_file):
    broken = bot_file("broken.py", "import no_such_module_anywhere\n")
    assert_bot_failed(lineit("match", broken, "random", "--games", "2", "--in-process"), "could not be loaded")


def test_tournament_and_sprt_exit_3_when_a_bot_failed(lineit, bot_file):
    bot = bot_file("raiser.py", FAILING_BOTS["exception"])

    tournament = lineit("tournament", bot, "random", "greedy", "--games-per-pairing", "2", "--in-process")
    sprt = lineit("sprt", bot, "random", "--batch", "2", "--max-games", "2", "--in-process")
    clean = lineit("tournament", "random", "greedy", "--games-per-pairing", "2", "--in-process")

    assert_bot_failed(tournament, "failed in some games: 'raiser'")
    assert "Standings:" in tournament.out
    assert_bot_failed(sprt, "'raiser' 2")
    assert "SPRT: raiser (new)" in sprt.out
    assert clean.status == 0


def zip_of(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


@pytest.mark.parametrize("command", [["match"], ["tournament"], ["sprt"]])
def test_a_zip_without_bot_py_is_refused_at_once_like_a_folder(lineit, tmp_path: Path, command):
    bot = "def act(observation):\n    return observation['legal_actions'][0]\n"
    nested = zip_of(tmp_path / "nested.zip", {"mybot/bot.py": bot})
    other = zip_of(tmp_path / "other.zip", {"main.py": bot})
    empty_folder = tmp_path / "folder"
    empty_folder.mkdir()
    not_a_zip = tmp_path / "fake.zip"
    not_a_zip.write_text("not a zip")

    cases = [
        (nested, "nested.zip: a zip package must hold bot.py at its root (found 'mybot/bot.py'"),
        (other, "other.zip: a zip package must hold bot.py at its root"),
        (empty_folder, "a bot folder must hold bot.py"),
        (not_a_zip, "fake.zip: not a readable zip"),
    ]
    for path, fragment in cases:
        outcome = lineit(*command, path, "random", "--in-process", "--progress")
        assert_one_line_error(outcome, 2, fragment)
        assert outcome.out == ""  # nothing played, not even a progress bar or a header


def test_a_zip_with_bot_py_at_its_root_plays(lineit, tmp_path: Path):
    good = zip_of(tmp_path / "good.zip", {"bot.py": "from helper import act\n", "helper.py": FAILING_BOTS["protocol"]})
    outcome = lineit("match", good, "random", "--games", "2")
    assert outcome.status == 3 and "good: protocol in games 0-1" in outcome.out  # it loaded, and played


def test_unknown_options_name_the_help_of_their_own_command(lineit):
    for command in ("match", "tournament", "sprt", "show", "verify", "doctor", "rules"):
        outcome = lineit(command, "random", "random", "--gmaes", "2")
        assert_one_line_error(outcome, 2, "--gmaes", f"(see 'lineit {command} --help')")
    assert_one_line_error(lineit("--gmaes"), 2, "(see 'lineit --help')")
    assert_one_line_error(lineit("match", "--gmaes"), 2, "(see 'lineit match --help')")


def test_the_exit_statuses_are_documented_in_the_help_and_the_readme(lineit):
    help_text = lineit("--help").out
    readme = (REPOSITORY / "README.md").read_text()
    statuses = [0, errors.FAILURE_EXIT, errors.USAGE_EXIT, errors.FORFEIT_EXIT, INTERNAL_ERROR_EXIT, 129, 130, 143]
    for status in statuses:
        assert f"\n  {status} " in help_text
        assert f"| {status} |" in readme


def test_the_installed_command_exits_with_the_same_status(tmp_path: Path):
    """The console script passes main()'s status on (as a subprocess would see it)."""
    bot = tmp_path / "raiser.py"
    bot.write_text(FAILING_BOTS["exception"])
    lineit = [sys.executable, "-m", "lineit.cli"]
    played = subprocess.run([*lineit, "match", bot, "random", "--games", "2"], capture_output=True, text=True)
    refused = subprocess.run([*lineit, "match", "random", "--gmaes"], capture_output=True, text=True)
    assert (played.returncode, refused.returncode) == (3, 2), played.stderr + refused.stderr
    assert refused.stderr == "lineit: error: unrecognized arguments: --gmaes (see 'lineit match --help')\n"


@pytest.mark.parametrize("command", ["match", "tournament", "sprt"])
def test_a_bot_that_is_no_regular_file_is_refused_before_it_is_read(tmp_path: Path, command):
    """A named pipe called bot.zip blocked lineit for good (the zip check opened it), one called
    bot.py played every game as a load failure, and a link to /dev/zero would be read, in
    process, until memory ran out: each is refused at once, like a file of another kind (a
    subprocess, so that the old behaviour fails the test instead of hanging it)."""
    pipe_zip, pipe_py, zero = tmp_path / "pipe.zip", tmp_path / "pipe.py", tmp_path / "zero.py"
    os.mkfifo(pipe_zip)
    os.mkfifo(pipe_py)
    zero.symlink_to("/dev/zero")
    for bot in (pipe_zip, pipe_py, zero):
        done = subprocess.run(
            [sys.executable, "-m", "lineit.cli", command, str(bot), "random", "--in-process"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert done.stdout == "" and done.stderr.startswith(f"lineit: error: {bot}: not a regular file")
        assert done.stderr.count("\n") == 1


GOOD_BOT = "def act(observation):\n    return observation['legal_actions'][0]\n"


def unstageable_zips(folder: Path) -> dict[Path, str]:
    """Zips with bot.py at their root that the sandbox refuses to unpack, with why."""
    link = zipfile.ZipInfo("helper.py")
    link.external_attr = 0o120777 << 16  # a symbolic link
    bomb = zipfile.ZipInfo("padding.bin")
    with zipfile.ZipFile(folder / "link.zip", "w") as archive:
        archive.writestr("bot.py", GOOD_BOT)
        archive.writestr(link, "/etc/passwd")
    with zipfile.ZipFile(folder / "bomb.zip", "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.py", GOOD_BOT)
        archive.writestr(bomb, b"\0" * (65 * 2**20))  # 65 MiB that compress to 64 KiB
    return {
        zip_of(folder / "escape.zip", {"bot.py": GOOD_BOT, "../\x1b]0;x\x07outside.py": "x"}): "unsafe path",
        zip_of(folder / "twice.zip", {"bot.py": GOOD_BOT, "lib": "x", "lib/a.py": "x"}): "given twice",
        folder / "link.zip": "'helper.py' is not a plain file",
        folder / "bomb.zip": "unpacks to more than",
    }


@pytest.mark.parametrize("command", [["match", "--in-process"], ["match"], ["tournament"], ["sprt"]])
def test_a_zip_the_sandbox_would_not_unpack_is_refused_at_once(lineit, tmp_path: Path, command):
    """Each of these played every game as a load failure and exited 3; like a zip without bot.py,
    they are refused before anything is played, by the sandbox's own unpacking rules."""
    for path, fragment in unstageable_zips(tmp_path).items():
        outcome = lineit(command[0], path, "random", *command[1:], "--progress")
        assert_one_line_error(outcome, 2, f"{path.name}: ", fragment)
        assert outcome.out == ""
        assert "\x1b" not in outcome.err
