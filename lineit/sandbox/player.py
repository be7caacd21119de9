"""SandboxedPlayer: one bot in its own confined process, behind the botkit Player interface. The
players of a match take turns through turns.py's TurnGate."""

from __future__ import annotations

import contextlib
import marshal
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import IO, Any, NoReturn

from lineit.botkit.failures import (
    EXCEPTION,
    EXITED,
    LOAD,
    MEMORY,
    PROTOCOL,
    STARTUP_FAILED,
    TIMEOUT,
    BotFailure,
)
from lineit.botkit.limits import Limits
from lineit.botkit.sources import BotSource

from .exits import describe_exit, unreaped, wait_for_exit
from .launch import BUBBLEWRAP, Launched, host_config, launch, read_tail, rlimits, stderr_file
from .protocol import (
    ACK,
    ACTION,
    CONFINED,
    FAILURE,
    READY,
    Channel,
    ChannelClosed,
    ChannelTimeout,
    ProtocolViolation,
    describe,
)
from .runtime import BotStagingError, StagedBot, stage_bot
from .turns import TurnGate, default_cpu_seconds

EXIT_GRACE_SECONDS = 2.0
MARSHAL_VERSION = 2  # no back-references: a third faster to encode and to decode than version 4
_CALLED = {
    "act": "act",
    "update": "act",
    "views": "act",
    "start_game": "start_game",
    "end_game": "end_game",
}  # for messages
# The host shares its process with the bot, so a failure report is the bot's word: the label is
# chosen here, by the phase, and the report may pick only among the labels that the bot's own
# code can cause in that phase (host.py: report_error). Any other report is a protocol
# violation. Either way the bot is charged; its message is its own text (BotFailure caps it).
REPORTABLE = {
    "load": frozenset({LOAD, MEMORY, EXITED}),
    "play": frozenset({EXCEPTION, MEMORY, EXITED, PROTOCOL}),
}


class SandboxedPlayer:
    """Implements botkit.players.Player with the bot in a sandboxed process of one tier."""

    def __init__(
        self,
        source: BotSource,
        limits: Limits,
        *,
        tier: str | None = None,
        cpu_seconds: float | None = None,
        gate: TurnGate | None = None,
    ) -> None:
        from .tiers import require_tier

        self.name = source.name
        self.source = source
        self.limits = limits
        self.tier = require_tier(tier)
        self.cpu_seconds = cpu_seconds if cpu_seconds is not None else default_cpu_seconds(limits)
        self._gate = gate
        self._staged: StagedBot | None = None
        self._stderr: IO[bytes] | None = None
        self._launched: Launched | None = None
        self._channel: Channel | None = None
        self._pidfd: int | None = None
        self.pid: int | None = None  # the bot host's process id, as seen from here
        self._init_pidfd: int | None = None  # bubblewrap's init (the host's parent), kept stopped
        self._frozen = False
        self._killed = False
        self._sent: dict[str, Any] | None = None  # the last observation this host received
        self._copies: list[SandboxedPlayer] = []  # fresh() made them: cleanup() cleans them too

    # ------------------------------------------------------------------ the Player interface

    def start(self, timeout: float) -> None:
        self.close()
        deadline = time.monotonic() + timeout
        if self._gate is not None:
            # Loading is timed like a decision: the other bots of the match are frozen meanwhile
            # (a bot's threads would otherwise take the CPU this one loads with).
            self._gate.activate(self)
        try:
            if self._staged is None:
                self._staged = stage_bot(self.source.path)
        except (BotStagingError, OSError) as error:
            raise BotFailure(LOAD, str(error)) from None
        self._stderr = stderr_file()
        try:
            config = host_config(self.tier, self._staged, self.limits.memory_mb, self.cpu_seconds)
            self._launched = launch(self.tier, self._staged, self._stderr, config)
        except Exception as error:
            self.close()
            raise BotFailure(STARTUP_FAILED, f"could not start the {self.tier} sandbox: {error}") from None
        self._channel = Channel(self._launched.to_host, self._launched.from_host)
        self._handshake(deadline, timeout)

    def start_game(self, info: dict[str, Any], timeout: float) -> None:
        self._acknowledged(*self._call("start_game", info, timeout))

    def act(self, observation: dict[str, Any], timeout: float) -> Any:
        kind, text = self._call(*self._observation_request(observation), timeout)
        if kind == ACTION:
            try:
                return text.decode("utf-8")
            except UnicodeDecodeError:
                self._fail(PROTOCOL, "the action is not valid UTF-8")
        self._unexpected(kind, text, PROTOCOL, "play")

    def end_game(self, result: dict[str, Any], timeout: float) -> None:
        self._acknowledged(*self._call("end_game", result, timeout))

    def stderr_tail(self) -> str:
        return read_tail(self._stderr)

    def close(self) -> None:
        if self._gate is not None:
            self._gate.release(self)
        if self._launched is not None:
            self._kill(again=True)
            self._launched.process.wait()
            if self._pidfd is not None:
                # the host is not our child in the bubblewrap tier: wait until it has exited too
                wait_for_exit(self._pidfd, EXIT_GRACE_SECONDS)
            if self._launched.info is not None:
                os.close(self._launched.info)
            self._launched = None
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        for pidfd in (self._pidfd, self._init_pidfd):
            if pidfd is not None:
                os.close(pidfd)
        self._pidfd = self._init_pidfd = None
        self.pid = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._frozen = False
        self._killed = False
        self._sent = None

    def fresh(self) -> SandboxedPlayer:
        """The same bot in a sandbox of its own: its own process, staged copy and stderr file,
        under the same limits and turn gate (the referee's lanes: no process plays two games of
        one deal). Cleaned up with this one."""
        copy = SandboxedPlayer(self.source, self.limits, tier=self.tier, cpu_seconds=self.cpu_seconds, gate=self._gate)
        self._copies.append(copy)
        return copy

    def cleanup(self) -> None:
        """close(), and remove the bot's private copy of its files (and its fresh() copies')."""
        self.close()
        for copy in self._copies:
            copy.cleanup()
        self._copies.clear()
        if self._staged is not None:
            self._staged.cleanup()
            self._staged = None

    def __del__(self) -> None:
        if getattr(self, "_launched", None) is not None:
            self._kill(again=True)

    # ------------------------------------------------------------------ freezing

    def freeze(self) -> None:
        if not self._frozen and self._pidfd is not None:
            self._signal(signal.SIGSTOP)
            self._frozen = True

    def thaw(self) -> None:
        if self._frozen and self._pidfd is not None:
            self._signal(signal.SIGCONT)
            self._frozen = False

    def _signal(self, number: int, pidfd: int | None = None) -> None:
        try:  # noqa: SIM105 (contextlib.suppress costs half a microsecond, on every turn change)
            signal.pidfd_send_signal(self._pidfd if pidfd is None else pidfd, number)  # type: ignore[arg-type]
        except ProcessLookupError:
            pass  # already dead: the next read reports how

    # ------------------------------------------------------------------ internals

    def _handshake(self, deadline: float, timeout: float) -> None:
        channel = self._require_channel()
        try:
            kind, text = channel.receive(deadline)
        except (ChannelTimeout, ChannelClosed, ProtocolViolation) as error:
            self._fail(STARTUP_FAILED, f"the sandbox did not report it was confined ({error})")
        if kind != CONFINED or text:
            self._fail(STARTUP_FAILED, f"unexpected first message from the bot host: {describe(kind, text)}")
        try:
            self.pid = self._host_pid()
            self._pidfd = os.pidfd_open(self.pid)
            # The host waits for this request before it imports the bot: the bot's code never
            # runs before its process is found here, so a bot that ends its process at once (in
            # the bubblewrap tier its init would reap it and vanish) is never taken for a
            # sandbox that did not start.
            channel.send(marshal.dumps(("load", None), MARSHAL_VERSION), deadline)
        except (OSError, ValueError, ChannelTimeout, ChannelClosed) as error:
            self._fail(STARTUP_FAILED, f"cannot find the bot host's process: {error}")
        try:
            kind, text = channel.receive(deadline)
        except ChannelTimeout:
            self._fail(TIMEOUT, f"the bot did not finish loading within {timeout:.3f} s")
        except ChannelClosed:
            self._died("while loading")
        except ProtocolViolation as error:
            self._fail(PROTOCOL, str(error))
        if kind != READY or text:
            self._unexpected(kind, text, LOAD, "load")
        if self._init_pidfd is not None:
            # bubblewrap's init only waits for the host to exit. Every stop and continue of the
            # host would wake it (a parent's wait is woken by any change of its child), two
            # context switches a turn change; stopped, it is not. It is let go in _died(), and
            # SIGKILL (close(), or the death of its parent) ends it stopped or not.
            self._signal(signal.SIGSTOP, self._init_pidfd)
        self._park()

    def _host_pid(self) -> int:
        launched = self._require_launched()
        if launched.info is None:
            return launched.process.pid
        # bubblewrap reports the pid of its init in the new pid namespace; the host is its child.
        info = os.read(launched.info, 4096).decode()
        init = int(info.split('"child-pid":')[1].split(",")[0].split("}")[0])
        children = Path(f"/proc/{init}/task/{init}/children").read_text().split()
        if len(children) != 1:
            raise ValueError(f"bubblewrap's init has {len(children)} children")
        self._init_pidfd = os.pidfd_open(init)
        return int(children[0])

    def _observation_request(self, observation: dict[str, Any]) -> tuple[str, Any]:
        """("act", the whole observation), ("update", the values that are not the very objects
        this bot's host received last time), or ("views", (those values but the players' list,
        {seat: view} of the players' views that are not)); host.py rebuilds the rest.

        The engine never changes a value of an observation once it has made it, and shares the
        unchanged ones between observations (tests/sandbox/test_observations.py checks both): an
        in-process bot gets the same objects again, and a sandboxed bot gets its host's copies
        of them again. A bot that modifies its observation only confuses itself, in either case.
        """
        sent = self._sent
        self._sent = observation.copy()  # holds the objects, so that no identity can be reused
        if sent is None or sent.keys() != observation.keys():
            return "act", observation
        changes = {key: value for key, value in observation.items() if value is not sent[key]}
        views, before = changes.get("players"), sent["players"]
        if type(views) is list and type(before) is list and len(views) == len(before):
            # The list is new every time, a player's view only when it changed: only those
            # travel (about half of them in a two-player game, one in five with five players).
            del changes["players"]
            return "views", (changes, {seat: view for seat, view in enumerate(views) if view is not before[seat]})
        return "update", changes

    def _call(self, operation: str, payload: Any, timeout: float) -> tuple[int, bytes]:
        """Send one request and return the reply's kind and text."""
        channel = self._channel
        if channel is None:
            raise BotFailure(LOAD, "the bot was not started")
        deadline = time.monotonic() + timeout
        gate = self._gate
        if gate is not None and gate.active is not self:
            gate.activate(self)
        if channel.has_unread():
            self._stray()
        request = marshal.dumps((operation, payload), MARSHAL_VERSION)
        try:
            if self._frozen:
                # A frozen host cannot read: it is thawed once its request is in the pipe (or
                # as soon as the pipe is full), and resumes straight into reading it.
                channel.send(request, deadline, self.thaw)
                self.thaw()
            else:
                channel.send(request, deadline)
            reply = channel.receive(deadline)
        except ChannelTimeout:
            self._fail(TIMEOUT, f"no answer to {_CALLED[operation]} within {timeout:.3f} s")
        except ChannelClosed:
            self._died(f"during {_CALLED[operation]}")
        except ProtocolViolation as error:
            self._fail(PROTOCOL, str(error))
        if gate is None:
            self.freeze()
        return reply

    def _acknowledged(self, kind: int, text: bytes) -> None:
        if kind != ACK or text:
            self._unexpected(kind, text, PROTOCOL, "play")

    def _park(self) -> None:
        if self._gate is not None:
            self._gate.release(self)
        self.freeze()

    def _stray(self) -> NoReturn:
        channel = self._require_channel()
        try:
            channel.receive(time.monotonic())
        except ChannelClosed:
            self._died("between decisions")
        except (ChannelTimeout, ProtocolViolation):
            pass
        self._fail(PROTOCOL, "the bot wrote to the pipe out of turn")

    def _unexpected(self, kind: int, text: bytes, default_kind: str, phase: str) -> NoReturn:
        if kind == FAILURE:
            reported, _, rest = text.decode("utf-8", "replace").partition("\0")
            message = rest.partition("\0")[0]  # the traceback is in the stderr tail
            if reported in REPORTABLE[phase]:
                self._fail(reported, message)
            self._fail(PROTOCOL, "the bot sent a failure report that its host never sends")
        reported = default_kind if kind in (ACTION, ACK, READY) else PROTOCOL
        self._fail(reported, f"unexpected message {describe(kind, text)}")

    def _died(self, when: str) -> NoReturn:
        """The host closed its pipe: wait briefly for its status and say how it ended."""
        launched = self._require_launched()
        self.thaw()
        found = None
        if self._pidfd is not None and self.pid is not None:
            # The host's own status and CPU time are read while it is unreaped: in the Landlock
            # tier it is our child, in the bubblewrap tier it waits for bwrap's init, kept stopped
            # (bwrap would report a signal death as 128 + signal, which a bot can fake with its
            # exit status). Then the init is let go, to reap it and end bwrap.
            wait_for_exit(self._pidfd, EXIT_GRACE_SECONDS)
            found = unreaped(self.pid)
            if self._init_pidfd is not None:
                self._signal(signal.SIGCONT, self._init_pidfd)
        try:
            # a Landlock host not found ended after the grace period will not end by itself now
            grace = EXIT_GRACE_SECONDS if found is not None or self._init_pidfd is not None else 0
            status = launched.process.wait(grace)
        except subprocess.TimeoutExpired:
            self._fail(PROTOCOL, f"the bot closed its pipe {when}")
        if found is not None:
            cpu_limit = rlimits(self.limits.memory_mb, self.cpu_seconds)["cpu"][0]
            kind, message = describe_exit(found[0], bubblewrap=False, cpu_seconds=found[1], cpu_limit=cpu_limit)
        else:
            kind, message = describe_exit(status, bubblewrap=self.tier == BUBBLEWRAP)
        self._fail(kind, f"{message} {when}")

    def _fail(self, kind: str, message: str) -> NoReturn:
        self._kill()
        # A sandbox that did not start: its output (bwrap's, the host's) travels as the tail, for
        # the operator (PlatformFailure.detail), never in the message, which match pages show.
        raise BotFailure(kind, message, self.stderr_tail())

    def _kill(self, *, again: bool = False) -> None:
        """Kill the bot (once, unless ``again``: close() kills whatever the flag says, since a
        signal that interrupted an earlier kill may have left the flag set and the bot alive, and
        close() then waits for it). The flag is set only once both kills are sent."""
        launched = self._launched
        if launched is not None and (again or not self._killed):
            # Killing bubblewrap tears down its pid namespace; in the Landlock tier the host is
            # the process itself, and it cannot fork. The host is killed directly as well, so
            # it does not wait for the parent-death signal to travel through bwrap's init.
            if self._pidfd is not None:
                self._signal(signal.SIGKILL)
            with contextlib.suppress(OSError):
                launched.process.kill()
            self._killed = True

    def _require_channel(self) -> Channel:
        if self._channel is None:
            raise BotFailure(LOAD, "the bot was not started")
        return self._channel

    def _require_launched(self) -> Launched:
        if self._launched is None:
            raise BotFailure(LOAD, "the bot was not started")
        return self._launched
