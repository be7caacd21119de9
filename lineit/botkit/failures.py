"""Every way a bot can fail, and who is to blame.

``startup_failed`` is the platform's fault (the sandbox did not come up): the game is not held
against the bot. Every other kind is the bot's.

Who may read what (docs/bot-interface.md): the kind, the seat, the game and the decision are
public. The message is the bot owner's, whatever the kind: it may quote the bot's own text (an
exception's message, an import error, the action string it returned, a type it named), and the
stderr tail is all the bot's. A replay is public, so it holds only the public fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final

# The kinds are the replay format's (a replay records them, and the engine checks where each
# can happen: lineit.engine.forfeits.FAILURE_PHASES); STOPPED: not run, too many failures earlier.
from lineit.engine.forfeits import (
    CPU_LIMIT,
    CRASH,
    EXCEPTION,
    EXITED,
    ILLEGAL_MOVE,
    LOAD,
    MEMORY,
    PROTOCOL,
    STARTUP_FAILED,
    STOPPED,
    TIME_BUDGET,
    TIMEOUT,
)

KINDS: Final = {
    STARTUP_FAILED: "the sandbox could not start (the platform's fault, not the bot's)",
    LOAD: "the bot could not be loaded (import error, missing entry point)",
    TIMEOUT: "a decision took longer than the per-move timeout",
    TIME_BUDGET: "the bot used up its time bank for the match",
    CPU_LIMIT: "the bot used more CPU time than allowed",
    MEMORY: "the bot used more memory than allowed",
    CRASH: "the bot's process was killed by a signal",
    EXCEPTION: "the bot raised an exception",
    EXITED: "the bot's process exited during the game",
    PROTOCOL: "the bot sent a malformed or oversized message",
    ILLEGAL_MOVE: "the bot returned an action that is not legal",
    STOPPED: "the bot failed too often and was stopped for the rest of the match",
}

PLATFORM_FAULTS: Final = frozenset({STARTUP_FAILED})
PUBLIC_FIELDS: Final = ("kind", "seat", "game", "decision")


@dataclass(frozen=True)
class Failure:
    """What went wrong with one seat in one game."""

    kind: str
    message: str
    seat: int = -1
    game: int = -1
    decision: int = -1  # index of the decision in the game, -1 outside play
    stderr_tail: str = ""

    @property
    def bots_fault(self) -> bool:
        return self.kind not in PLATFORM_FAULTS

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def public_dict(self) -> dict[str, Any]:
        """What anyone may read: without the message and the stderr tail, the owner's."""
        return {name: getattr(self, name) for name in PUBLIC_FIELDS}


def public_replay(document: Mapping[str, Any]) -> dict[str, Any]:
    """A replay as anyone may read it: its ``meta.failures`` with their public fields only.

    The referee writes nothing else there; replays recorded before the message became the
    owner's still hold it, and this leaves it out wherever a replay is served. The game itself
    (and so its verification) does not depend on ``meta``."""
    public = dict(document)
    meta = public.get("meta")
    if isinstance(meta, Mapping) and isinstance(meta.get("failures"), list):
        failures = [
            {name: failure[name] for name in PUBLIC_FIELDS if name in failure}
            for failure in meta["failures"]
            if isinstance(failure, Mapping)
        ]
        public["meta"] = {**meta, "failures": failures}
    return public


MAX_MESSAGE = 1000  # characters of a failure's message: it often quotes the bot's own text
MAX_STDERR_TAIL = 4000


class BotFailure(Exception):
    """Raised by a player when its bot fails; the referee turns it into a Failure. The message
    and the tail are cut to their caps here, whoever raised it (the sandbox, the in-process
    player, the referee)."""

    def __init__(self, kind: str, message: str, stderr_tail: str = "") -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown failure kind {kind!r}")
        if len(message) > MAX_MESSAGE:
            message = f"{message[: MAX_MESSAGE - 40]}... ({len(message)} characters in all)"
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.stderr_tail = stderr_tail[-MAX_STDERR_TAIL:]
