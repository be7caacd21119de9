"""Players: what the referee talks to, one per entrant. In-process players live here (and the
player of an entrant stopped before its shard begins, which runs nothing); the sandbox package
supplies isolated ones with the same methods."""

from __future__ import annotations

import marshal
import tempfile
import traceback
from pathlib import Path
from typing import Any, Protocol

from lineit.engine.observation import private_copy

from .failures import EXCEPTION, EXITED, LOAD, MEMORY, STOPPED, BotFailure
from .interface import BotLoadError, Policy, load_policy
from .scratch import scratch_folder
from .sources import BotSource

IN_PROCESS_TIER = "in-process"


class Player(Protocol):
    """One entrant's bot as the referee sees it. Every call may raise BotFailure."""

    name: str

    def start(self, timeout: float) -> None: ...

    def start_game(self, info: dict[str, Any], timeout: float) -> None: ...

    def act(self, observation: dict[str, Any], timeout: float) -> Any: ...

    def end_game(self, result: dict[str, Any], timeout: float) -> None: ...

    def stderr_tail(self) -> str: ...

    def close(self) -> None: ...

    def fresh(self) -> Player:
        """Another player of the same bot that shares nothing with this one (no process, no
        memory, no files): the referee plays each lane of an entrant with its own
        (schedule.lane_of), so that no bot process plays two games of one deal."""
        ...


def _whole_copy(value: dict[str, Any]) -> dict[str, Any]:
    """A copy sharing nothing with ``value`` (plain data: marshal's version 2 writes no
    back-references), many times faster than copy.deepcopy."""
    copied: dict[str, Any] = marshal.loads(marshal.dumps(value, 2))
    return copied


def last_traceback_line(error: BaseException) -> str:
    lines = traceback.format_exception_only(type(error), error)
    return lines[-1].strip() if lines else repr(error)


class InProcessPlayer:
    """Runs a trusted bot inside the calling process: no isolation and no way to interrupt it,
    but time is still measured and an overrun is classified as a timeout afterwards.

    The bot gets its own copy of everything it is given (``private_copy`` for an observation,
    whose parts the engine shares between observations and seats): whatever it changes, now or
    later through a reference it kept, reaches neither another bot, nor the referee, nor its
    own next observation, as in the sandbox, where every value crosses a pipe."""

    tier = IN_PROCESS_TIER

    def __init__(self, source: BotSource) -> None:
        self.name = source.name
        self.source = source
        self._policy: Policy | None = None
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    def start(self, timeout: float) -> None:
        self.close()
        extract_to = None
        if self.source.is_zip:
            self._scratch = scratch_folder("bot")
            extract_to = Path(self._scratch.name)
        self._policy = self._timed(timeout, LOAD, load_policy, self.source.path, extract_to=extract_to)

    def _timed(self, timeout: float, kind: str, function: Any, *args: Any, **kwargs: Any) -> Any:
        """Run the bot's code and classify whatever it raises as the sandbox's host does
        (sandbox/host.py, report_error), so a bot fails alike in-process and sandboxed: nothing
        it raises reaches the referee as it is, neither a BotFailure of its own making (which
        could claim the platform's fault) nor an exception the referee does not expect
        (BaseException's other subclasses). Only KeyboardInterrupt goes through: it is the
        person's Ctrl-C, which stops the command (a sandboxed bot never receives it).

        The referee measures time and classifies an overrun; in-process, nothing can interrupt."""
        try:
            return function(*args, **kwargs)
        except KeyboardInterrupt:
            raise
        except MemoryError:
            raise BotFailure(MEMORY, "MemoryError: the bot ran out of memory") from None
        except SystemExit as error:
            raise BotFailure(EXITED, f"the bot called exit({error.code!r})") from None
        except BotLoadError as error:
            if kind == LOAD:  # the loader's own message (or the bot's, raising the loader's error)
                raise BotFailure(LOAD, str(error)) from None
            raise BotFailure(kind, last_traceback_line(error), traceback.format_exc()[-2000:]) from None
        except BaseException as error:  # the bot's own code: anything it raises is its failure
            raise BotFailure(kind, last_traceback_line(error), traceback.format_exc()[-2000:]) from None

    def _require(self) -> Policy:
        if self._policy is None:
            raise BotFailure(LOAD, "the bot was not loaded")
        return self._policy

    def start_game(self, info: dict[str, Any], timeout: float) -> None:
        self._timed(timeout, EXCEPTION, self._require().start_game, _whole_copy(info))

    def act(self, observation: dict[str, Any], timeout: float) -> Any:
        return self._timed(timeout, EXCEPTION, self._require().act, private_copy(observation))

    def end_game(self, result: dict[str, Any], timeout: float) -> None:
        self._timed(timeout, EXCEPTION, self._require().end_game, _whole_copy(result))

    def stderr_tail(self) -> str:
        return ""

    def fresh(self) -> InProcessPlayer:
        """A new load of the bot's file (its own module, its own scratch folder). In-process
        bots are trusted: nothing stops one from keeping a deal in the interpreter's own state
        (a module it imports, builtins), which only a sandbox's process per lane can."""
        return InProcessPlayer(self.source)

    def close(self) -> None:
        self._policy = None
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None


class StoppedPlayer:
    """An entrant stopped before its shard begins: every game it is due to play is forfeited as
    the referee forfeits a stopped bot's games (the same failure, the same message), without
    running anything."""

    def __init__(self, name: str, max_failures: int) -> None:
        self.name = name
        self.message = f"stopped after {max_failures} failed games"

    def start(self, timeout: float) -> None:
        raise BotFailure(STOPPED, self.message)

    def start_game(self, info: dict[str, Any], timeout: float) -> None:
        raise BotFailure(STOPPED, self.message)

    def act(self, observation: dict[str, Any], timeout: float) -> Any:
        raise BotFailure(STOPPED, self.message)

    def end_game(self, result: dict[str, Any], timeout: float) -> None:
        raise BotFailure(STOPPED, self.message)

    def stderr_tail(self) -> str:
        return ""

    def close(self) -> None:
        pass

    def fresh(self) -> StoppedPlayer:
        return self

    def cleanup(self) -> None:
        pass
