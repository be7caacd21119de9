"""``lineit``: the entry point. Parses the command line and maps errors to exit statuses."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from lineit_platform.botkit.untrusted import safe_text

from . import doctor, match, rules, show, sprt, tournament, verify
from .errors import CommandError, UsageError

INTERNAL_ERROR_EXIT = 70  # EX_SOFTWARE: a bug in lineit itself, told apart from a failed command
ERROR_LENGTH = 2000  # an error line's text at most (it may quote a replay file's field)

DESCRIPTION = """\
Line-it Arena on your own machine: play matches between bots, show and verify replays.

exit status:
  0    success: every game played without a failure, every replay verified
  1    the command ran and something failed: an unreadable file, a replay that does not verify,
       no sandbox, a sandbox that did not start
  2    the command line is wrong, nothing was played: an unknown option, a bad value, a bot
       that names no file and no built-in, a zip or folder without bot.py
  3    a bot failed (match, tournament, sprt): it forfeited at least one game (an exception,
       an illegal move, a timeout, a bad return value) or never loaded; the results are printed
  70   a bug in lineit itself (LINEIT_DEBUG=1 shows the traceback)
  130  interrupted (Ctrl-C)
  143  terminated (SIGTERM); like Ctrl-C, the bots are stopped and their temporary folders removed"""


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


def build_parser() -> Parser:
    parser = Parser(prog="lineit", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    for module in (match, tournament, sprt, show, verify, doctor, rules):
        module.add_parser(commands)
    parser.commands = commands.choices
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: the running command unwinds, stopping its bots and removing
    their temporary folders (the default action would end the process with nothing cleaned)."""


def _terminate(number: int, frame: object) -> NoReturn:
    raise Terminated


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    handles_signals = threading.current_thread() is threading.main_thread()  # (only the main thread may)
    previous = signal.signal(signal.SIGTERM, _terminate) if handles_signals else None
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            raise UsageError(
                "choose a command: match, tournament, sprt, show, verify, doctor or rules (see 'lineit --help')"
            )
        status: int = args.handler(args)
        return status
    except CommandError as error:
        _flush_quietly()
        # One line, whatever it quotes (a bot's name or message, a file's contents, the argument).
        print(f"lineit: error: {safe_text(error, max_length=ERROR_LENGTH)}", file=sys.stderr)
        return error.exit_status
    except SystemExit as done:  # --help and --version end here
        return done.code if isinstance(done.code, int) else 0 if done.code is None else 1
    except KeyboardInterrupt as interrupted:
        terminated = isinstance(interrupted, Terminated)
        print(f"\nlineit: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return 143 if terminated else 130
    except BrokenPipeError:
        # `lineit show ... | head`: the reader left; say nothing and do not fail at exit either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as error:
        if os.environ.get("LINEIT_DEBUG"):
            raise
        print(
            f"lineit: internal error: {type(error).__name__}: {safe_text(error, max_length=ERROR_LENGTH)} "
            "(a bug in lineit; set LINEIT_DEBUG=1 to see the traceback)",
            file=sys.stderr,
        )
        return INTERNAL_ERROR_EXIT
    finally:
        if handles_signals:
            signal.signal(signal.SIGTERM, previous)


def _flush_quietly() -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
