"""``lineit``: the entry point. Parses the command line and maps errors to exit statuses."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from lineit.botkit.scratch import KINDS, make_writable, prefix
from lineit.botkit.untrusted import safe_text

from .errors import CommandError, UsageError

INTERNAL_ERROR_EXIT = 70  # EX_SOFTWARE: a bug in lineit itself, told apart from a failed command
ERROR_LENGTH = 2000  # an error line's text at most (it may quote a replay file's field)

DESCRIPTION = """\
Line-it Arena on your own machine: play matches between bots, show and verify replays.

exit status:
  0    success: every game played without a failure, every replay verified
  1    the command ran and something failed: a file it may not read, a replay that does not verify,
       no sandbox, a sandbox that did not start, a reader of the output that left (| head)
  2    the command line or its input is wrong, nothing was played: an unknown option, a bad
       value, a bot that names no file and no built-in, a zip or folder without bot.py, a zip
       the sandbox would not unpack, a named pipe or a device given as a bot, a replay or key
       file that is not one (not JSON, nested too deeply, too large, not a regular file)
  3    a bot failed (match, tournament, sprt): it forfeited at least one game (an exception,
       an illegal move, a timeout, a bad return value) or never loaded; the results are printed
  70   a bug in lineit itself (LINEIT_DEBUG=1 shows the traceback)
  129  hung up (SIGHUP: the terminal was closed)
  130  interrupted (Ctrl-C)
  143  terminated (SIGTERM)
       on 129, 130 and 143 the bots are stopped and their temporary folders removed; a second
       signal while that happens is ignored, so it cannot cut the clean-up short"""


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors become one line, ``lineit: error: ...``, naming the help
    of the command that was given (``see 'lineit match --help'``)."""

    commands: Mapping[str, argparse.ArgumentParser] | None = None  # the top parser's subcommands

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        # argparse reports a subcommand's unknown options from the top parser, whose help does not
        # list them: the subcommand's parser reports them instead.
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            chosen = (self.commands or {}).get(getattr(parsed, "command", None) or "", self)
            chosen.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


# The commands, in the order --help lists them, each with the one line --help gives it (the same
# line as its module's own parser: tests/cli/test_cli_startup.py checks). Only the module of the
# command given is imported: the others' imports (the engine, the formats, the sandbox) are most
# of lineit's start-up, and `lineit --help`, `lineit --version` or `lineit show` need none of them.
COMMANDS: dict[str, str] = {
    "match": "play a match between 2 to 5 bots",
    "tournament": "play a tournament between bots (round robin, Swiss, elimination)",
    "sprt": "test whether a new bot is stronger than an old one, in as few games as needed",
    "show": "show a replay turn by turn",
    "verify": "verify replay files",
    "doctor": "check which sandbox tier can run bots here",
    "rules": "print the rules of Line-it (--summary: the rules version and the rulesets)",
    "new": "write a starter bot folder (or zip a bot folder for upload)",
}


def version_line() -> str:
    """``lineit --version``: the kit's version, the rules version its engine plays, and whether the
    engine runs compiled. Reads the engine's two small modules, not the engine."""
    from lineit import __version__
    from lineit.engine._implementation import IMPLEMENTATION
    from lineit.engine.rules import RULES_VERSION

    return f"lineit {__version__} (rules {RULES_VERSION}, engine {IMPLEMENTATION})"


class VersionAction(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(version_line())
        parser.exit()


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command named on the command line: its first word that is not an option (the top
    parser's options take no value)."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(argv: Sequence[str] | None = None, *, every_command: bool = False) -> Parser:
    """The parser, with the full parser of the command argv names (or of all commands, when
    ``every_command``) and a one-line entry for each of the others. The commands are imported
    here, not at the top, so that a Ctrl-C during their import finds the signal handlers of
    main() in place rather than printing a traceback."""
    import importlib

    chosen = chosen_command(sys.argv[1:] if argv is None else argv)
    parser = Parser(prog="lineit", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--version", action=VersionAction, help="print the version of lineit and of its rules, and exit"
    )
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if every_command or name == chosen:
            importlib.import_module(f"{__package__}.{name}").add_parser(commands)
        else:
            commands.add_parser(name, help=summary)
    parser.commands = commands.choices
    return parser


# The signals that end lineit, and what it says then; the exit status is 128 + the signal's number.
STOP_SIGNALS = {signal.SIGHUP: "hung up", signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


class Stopped(KeyboardInterrupt):
    """A signal that ends lineit (Ctrl-C, SIGTERM, SIGHUP when the terminal closes), handled as
    Ctrl-C always was: the running command unwinds, stopping its bots and removing their
    temporary folders (the default action of SIGTERM and SIGHUP ends the process with nothing
    cleaned)."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


class StopSignals:
    """While installed, the first of STOP_SIGNALS raises Stopped in the main thread and any later
    one is ignored: a second Ctrl-C, or SIGTERM sent twice, cannot interrupt the clean-up the
    first one started. A signal that was ignored when lineit started (nohup, a background job)
    stays ignored."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.previous: dict[int, Any] = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # only the main thread may handle signals
        for number in STOP_SIGNALS:
            if signal.getsignal(number) != signal.SIG_IGN:
                self.previous[number] = signal.signal(number, self.handle)

    def handle(self, number: int, frame: object) -> None:
        if self.received is not None:
            return
        self.received = number
        raise Stopped(number)

    def restore(self, *, exiting: bool) -> None:
        """The handlers from before, unless the process is on its way out (after a signal, or at
        the end of the ``lineit`` program itself): then the signals are ignored, since another one
        must neither raise where nothing catches it nor, once Python puts the default actions
        back at exit, kill the process with a status of its own."""
        for number, previous in self.previous.items():
            signal.signal(number, signal.SIG_IGN if exiting or self.received is not None else previous)


def main(argv: Sequence[str] | None = None) -> int:
    signals = StopSignals()
    signals.install()
    try:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if args.command is None:
            *others, last = COMMANDS
            raise UsageError(f"choose a command: {', '.join(others)} or {last} (see 'lineit --help')")
        status: int = args.handler(args)
        return status
    except CommandError as error:
        _flush_quietly()
        # One line, whatever it quotes (a bot's name or message, a file's contents, the argument).
        _say(f"lineit: error: {safe_text(error, max_length=ERROR_LENGTH)}")
        return error.exit_status
    except SystemExit as done:  # --help and --version end here
        return done.code if isinstance(done.code, int) else 0 if done.code is None else 1
    except KeyboardInterrupt as interrupted:
        remove_own_folders()
        number = interrupted.number if isinstance(interrupted, Stopped) else signal.SIGINT
        _say(f"\nlineit: {STOP_SIGNALS[signal.Signals(number)]}")
        return 128 + number
    except BrokenPipeError:
        # `lineit show ... | head`: the reader left; say nothing and do not fail at exit either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as error:
        if os.environ.get("LINEIT_DEBUG"):
            raise
        _say(
            f"lineit: internal error: {type(error).__name__}: {safe_text(error, max_length=ERROR_LENGTH)} "
            "(a bug in lineit; set LINEIT_DEBUG=1 to see the traceback)"
        )
        return INTERNAL_ERROR_EXIT
    finally:
        signals.restore(exiting=argv is None)  # None: the command line of this process, which ends now


def remove_own_folders() -> None:
    """After a signal, once the command has unwound: any temporary folder of this process still
    there (code interrupted between making a folder and taking charge of it) is removed, so a
    signal leaves nothing behind wherever it lands. Only this process's own folders, by the
    process id and start time in their names."""
    ours = tuple(prefix(kind) for kind in KINDS)
    root = Path(tempfile.gettempdir())
    uid = os.geteuid()
    with contextlib.suppress(OSError):
        for entry in os.scandir(root):
            # The names are predictable: a folder another user made under one is not ours to touch.
            if (
                entry.name.startswith(ours)
                and entry.is_dir(follow_symlinks=False)
                and entry.stat(follow_symlinks=False).st_uid == uid
            ):
                make_writable(Path(entry.path))
                shutil.rmtree(entry.path, ignore_errors=True)


def _say(line: str) -> None:
    """A last line on stderr, if there is still someone to read it (after SIGHUP the terminal is gone)."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr)


def _flush_quietly() -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
