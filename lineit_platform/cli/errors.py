"""The two ways a command can fail, each with its exit status."""

from __future__ import annotations

USAGE_EXIT = 2
FAILURE_EXIT = 1


class CommandError(Exception):
    """The command ran and something failed (an unreadable file, an unavailable sandbox)."""

    exit_status = FAILURE_EXIT


class UsageError(CommandError):
    """The command line itself is wrong: an unknown option, a bad value, a bot that names nothing."""

    exit_status = USAGE_EXIT
