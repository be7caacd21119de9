"""The ways a command can end other than well, each with its exit status (the table is in
main.DESCRIPTION and the README)."""

from __future__ import annotations

FAILURE_EXIT = 1
USAGE_EXIT = 2
FORFEIT_EXIT = 3


class CommandError(Exception):
    """The command ran and something failed (an unreadable file, an unavailable sandbox)."""

    exit_status = FAILURE_EXIT


class UsageError(CommandError):
    """The command line itself is wrong: an unknown option, a bad value, a bot that names nothing
    or a file that cannot be a bot (a zip without bot.py). Nothing was played."""

    exit_status = USAGE_EXIT


class InputRejected(UsageError):
    """A file given on the command line is not what the command reads (a replay that is not JSON,
    nested too deeply, too large, not a regular file): bad input, refused before any work."""


class BotsForfeited(CommandError):
    """The games were played and their results printed, but a bot forfeited at least one of them
    (an exception, an illegal move, a timeout, a bad return value, a bot that never loaded)."""

    exit_status = FORFEIT_EXIT
