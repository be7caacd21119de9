"""`lineit --help` and `lineit --version` start without loading the commands' modules (the
engine's game code, the formats and their rustworkx and numpy, the sandbox), and the one-line summaries --help
gives match the commands' own parsers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lineit.cli import main as cli_main

HEAVY = ("rustworkx", "numpy", "lineit.formats", "lineit.sandbox", "lineit.botkit.referee", "lineit.cli.match")
ENGINE = ("lineit.engine",)  # --version reads the rules version and the engine's build from it

PROBE = """
import contextlib, io, json, sys
from lineit.cli.main import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    status = main(sys.argv[1:])
print(json.dumps({"status": status, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def probe(*argv: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_help_and_version_load_no_command_module(argv):
    result = probe(*argv)
    heavy = HEAVY if argv == ["--version"] else HEAVY + ENGINE
    loaded = [name for name in result["modules"] if name.startswith(heavy)]
    assert loaded == []
    assert result["status"] == (2 if not argv else 0)


def test_a_command_loads_only_its_own_module():
    result = probe("rules")
    assert result["status"] == 0
    assert "lineit.cli.rules" in result["modules"]
    assert not any(name in result["modules"] for name in ("lineit.cli.match", "lineit.cli.tournament", "rustworkx"))


def test_version_names_the_kit_the_rules_and_the_engine():
    from lineit import __version__
    from lineit.engine import RULES_VERSION
    from lineit.engine._implementation import IMPLEMENTATION

    out = probe("--version")["out"]
    assert out == f"lineit {__version__} (rules {RULES_VERSION}, engine {IMPLEMENTATION})\n"


def test_the_summaries_are_those_of_the_commands_own_parsers():
    full = cli_main.build_parser(every_command=True)
    real = {action.dest: action.help for action in full._subparsers._group_actions[0]._choices_actions}
    assert real == cli_main.COMMANDS
    assert list(full.commands) == list(cli_main.COMMANDS)


def test_a_command_named_after_options_is_still_parsed_fully(capsys):
    # the command is found after top-level options, and its own options are known
    assert cli_main.main(["--", "rules"]) == 2  # after "--" there is no command
    assert cli_main.main(["rules", "--no-such-option"]) == 2
    assert "see 'lineit rules --help'" in capsys.readouterr().err
