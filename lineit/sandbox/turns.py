"""Whose turn it is: the players of one match run one at a time (TurnGate), the others frozen, and
so a bot's CPU time limit is a safety net sized to its wall time (default_cpu_seconds)."""

from __future__ import annotations

from typing import Protocol

from lineit.botkit.limits import Limits

DECISIONS_ALLOWED_WITHOUT_BANK = 200  # for the CPU rlimit of a player made outside a match


class Frozen(Protocol):
    """A player the gate can freeze (player.py: SandboxedPlayer, with SIGSTOP)."""

    def freeze(self) -> None: ...


class TurnGate:
    """Lets exactly one bot of a match run at a time: the others are frozen (SIGSTOP).

    A player shared by a gate is thawed when the referee turns to it and frozen when the referee
    turns to another player (to load it too: loading is timed), so consecutive decisions of one
    bot cost no signals. A player without a gate is frozen after every call. The player thaws
    itself only once its request is in the pipe, so the host wakes up once (to a request
    waiting) instead of twice.

    Every bot is frozen, even a single-threaded one that looks blocked reading its pipe: its own
    code can run there too (a timer's signal handler, a thread started after its reply), and on
    a match pinned to one CPU such a bot would take the time of the opponent's turn.
    """

    def __init__(self) -> None:
        self.active: Frozen | None = None

    def activate(self, player: Frozen) -> None:
        """Freeze whichever other player was active; ``player`` is now the one allowed to run."""
        if self.active is not player:
            if self.active is not None:
                self.active.freeze()
            self.active = player

    def release(self, player: Frozen) -> None:
        if self.active is player:
            self.active = None


def default_cpu_seconds(limits: Limits, decisions: int = DECISIONS_ALLOWED_WITHOUT_BANK) -> float:
    """A bot is frozen off its turn and the match is pinned to one CPU, so CPU time can only
    exceed wall time through threads on other CPUs: the rlimit is a safety net sized to the
    most wall time a bot may legitimately use over ``decisions`` decisions."""
    return limits.startup_seconds + limits.bank_seconds + limits.move_timeout_seconds + limits.move_seconds * decisions
