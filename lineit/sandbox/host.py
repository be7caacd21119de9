"""The bot host: the trusted program that runs inside the sandbox and loads one bot.

It is started as ``python -I -S host.py`` with an environment of BOT_ENVIRONMENT (launch.py) and
LINEIT_HOST_PIPES, the numbers of its two pipes, which it moves to 3 and 4. Start-up
time matters (every bot of every match pays it), so before the bot it imports only os, marshal,
_signal, host_confinement.py (its neighbour in the runtime folder) and _ctypes (not ctypes: the
few libc calls are made with _ctypes directly; the Landlock tier imports ctypes), the bot
interface (itself kept to os, sys and itertools) and nothing else of the platform; traceback is
imported only when a bot fails. Steps:

1. read the configuration frame (marshal, written by the trusted parent);
2. confine itself: rlimits; in the Landlock tier also the parent-death signal, capability drop,
   no_new_privs and a Landlock ruleset; then a seccomp filter (in the bubblewrap tier bwrap has
   already applied the main filter, and this one only forbids exec);
3. forget what only confinement needed (the configuration, its bytes in the read buffer, the
   modules it imported), so that the bot finds the same host in every tier;
4. report ``C`` (confined), wait for the parent's ``load`` (sent once it has found this process),
   load the bot, report ``R`` (ready) or a failure;
5. answer requests until the parent closes the pipe.

Frames in both directions are a 4-byte big-endian length and a payload. Parent to host: the
4-byte number of the request and marshal of (operation, payload) (the parent is trusted, the host
decodes it straight from its reusable read buffer). Host to parent: one type byte, the 4-byte
number of the request answered and UTF-8 text, so the parent never decodes anything richer than
a string from the untrusted side.

This file and host_confinement.py are copied into the sandbox's read-only runtime folder; they
must stay standard-library only and must not import the platform package at module level. The
format's constants are written here only: the parent's end (protocol.py) and its reading of the
host's exit status (exits.py) import them from this module, which does nothing when imported.
"""

from __future__ import annotations

import _signal  # not signal: that one imports enum, functools and collections (milliseconds)
import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_FRAME = 1 << 20
HEADER = 4
SEQUENCE = 4  # every frame names the request it answers (protocol.py)
PIPE_LOST = 125  # exit status when the bot closed or broke the host's pipes (exits.py: a protocol failure)

# Host -> parent message types.
CONFINED = b"C"
READY = b"R"
ACTION = b"A"
ACK = b"K"
FAILURE = b"F"
CANARY = b"Y"

_reserve: bytearray | None = None  # made by main(), released on MemoryError so the host can still report it
_spare_fd = -1  # a descriptor kept free for reporting a bot that used up its open files


class Channel:
    """Frames in a reusable buffer: one read() per request in the usual case, no copies of the
    payload before marshal decodes it, one write() per reply."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd
        self._set_buffer(bytearray(1 << 16))
        self.start = 0  # unread bytes are buffer[start:end]
        self.end = 0
        self.seq = 0  # the request being answered

    def _set_buffer(self, buffer: bytearray) -> None:
        self.buffer = buffer
        self.view = memoryview(buffer)
        self.whole = [self.view]  # readv's vector for an empty buffer, made once

    def _fill(self, size: int) -> None:
        """Read until ``size`` bytes are buffered."""
        if self.start + size > len(self.buffer):
            pending = self.buffer[self.start : self.end]
            if size > len(self.buffer):
                self._set_buffer(bytearray(size))
            self.buffer[: len(pending)] = pending
            self.start, self.end = 0, len(pending)
        read_fd, readv = self.read_fd, os.readv
        while self.end - self.start < size:
            try:
                count = readv(read_fd, self.whole if self.end == 0 else [self.view[self.end :]])
            except InterruptedError:
                continue
            except OSError:
                os._exit(PIPE_LOST)
            if not count:
                os._exit(0)  # the parent closed the pipe: the match is over
            self.end += count

    def receive(self) -> Any:
        """The next request's payload, decoded; its number is kept in ``seq`` for the reply."""
        if self.end - self.start < HEADER + SEQUENCE:
            self._fill(HEADER + SEQUENCE)
        start = self.start
        end = start + HEADER + int.from_bytes(self.buffer[start : start + HEADER], "big")
        if self.end < end:
            self._fill(end - start)
            start, end = self.start, self.start + end - start
        self.seq = int.from_bytes(self.buffer[start + HEADER : start + HEADER + SEQUENCE], "big")
        value = marshal.loads(self.view[start + HEADER + SEQUENCE : end])
        if end == self.end:
            self.start = self.end = 0
        else:
            self.start = end
        return value

    def send(self, kind: bytes, text: str = "") -> None:
        body = text.encode("utf-8", "replace")
        if len(body) > MAX_FRAME - 1 - SEQUENCE:  # cut at a character: still text, as in-process
            body = body[: MAX_FRAME - 1 - SEQUENCE].decode("utf-8", "ignore").encode("utf-8")
        data = b"".join(
            ((len(body) + 1 + SEQUENCE).to_bytes(HEADER, "big"), kind, self.seq.to_bytes(SEQUENCE, "big"), body)
        )
        while True:
            try:
                written = os.write(self.write_fd, data)
            except InterruptedError:
                continue
            except OSError:
                os._exit(PIPE_LOST)
            if written == len(data):
                return
            data = data[written:]  # a signal handler of the bot interrupted a long write

    def fail(self, kind: str, message: str, detail: str = "") -> None:
        self.send(FAILURE, f"{kind}\0{message}\0{detail}")


class TolerantWriter:
    """sys.stdout/sys.stderr for the bot: writes to fd 2 (a size-capped file) and never raises."""

    encoding = "utf-8"
    errors = "replace"

    def write(self, text: str) -> int:
        try:  # noqa: SIM105
            os.write(2, str(text).encode("utf-8", "replace"))
        except OSError:
            pass  # over the file-size cap: the rest of the log is dropped
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return 2


# ----------------------------------------------------------------------------- the bot


def _traceback_module() -> Any:
    """traceback, imported only when a bot failed (it costs milliseconds at start-up); None if it
    cannot be imported (the bot used up its memory or files, or broke the import system)."""
    global _reserve, _spare_fd
    _reserve = None
    if _spare_fd >= 0:
        try:  # noqa: SIM105
            os.close(_spare_fd)
        except OSError:
            pass
        _spare_fd = -1
    try:
        import traceback
    except BaseException:
        return None
    return traceback


def last_line(error: BaseException) -> str:
    traceback = _traceback_module()
    if traceback is not None:
        try:
            lines = traceback.format_exception_only(type(error), error)
            return lines[-1].strip() if lines else repr(error)
        except Exception:
            pass
    kind = type(error)
    name = (
        kind.__qualname__ if kind.__module__ in ("builtins", "__main__") else f"{kind.__module__}.{kind.__qualname__}"
    )
    text = str(error)
    return f"{name}: {text}" if text else name


def report_error(channel: Channel, kind: str, error: BaseException) -> None:
    global _reserve
    _reserve = None
    if isinstance(error, MemoryError):
        channel.fail("memory", "MemoryError: the bot ran out of its memory limit")
        return
    if isinstance(error, SystemExit):
        channel.fail("exited", f"the bot called exit({error.code!r})")
        return
    line = last_line(error)
    traceback = _traceback_module()
    try:
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__)) if traceback else line
    except Exception:
        text = line
    sys.stderr.write(text)
    channel.fail(kind, line, text[-4000:])


def serve(channel: Channel, policy: Any) -> None:
    """Answer requests until the parent closes the pipe. An ``act`` request carries a whole
    observation, an ``update`` request only what is not the very objects sent before, a
    ``views`` request that and, of the players' views, only the new ones by seat (player.py):
    the host keeps the last observation and gives the bot a whole copy of it each time, so
    what the bot changes in one observation (or later, through a reference it kept) is not in
    the next one, as in-process (botkit/players.py)."""
    receive, send, act = channel.receive, channel.send, policy.act
    loads, dumps = marshal.loads, marshal.dumps
    observation: dict[str, Any] = {}  # the host's own: the bot gets a whole copy each time
    while True:
        operation, payload = receive()
        try:
            if operation == "views" or operation == "update" or operation == "act":
                if operation == "views":  # the changes, and the players' views that changed, by seat
                    changes, changed = payload
                    views = observation["players"].copy()
                    for seat, view in changed.items():
                        views[seat] = view
                    changes["players"] = views
                    observation.update(changes)
                elif operation == "update":
                    observation.update(payload)
                else:
                    observation = payload
                # the bot's own copy, sharing nothing with the host's (marshal: the fastest whole
                # copy; version 2 writes no back-references, so nothing is shared inside it either)
                action = act(loads(dumps(observation, 2)))
                if isinstance(action, str):
                    send(ACTION, action)
                else:
                    channel.fail("protocol", f"act() must return an action string, not {type(action).__name__}")
                continue
            if operation == "start_game":
                policy.start_game(payload)
            elif operation == "end_game":
                policy.end_game(payload)
            send(ACK)
        except BaseException as error:
            report_error(channel, "exception", error)
            os._exit(0)


READ_FD, WRITE_FD = 3, 4  # where the host keeps its pipes, in every tier


def take_pipes() -> None:
    """Move the pipes to READ_FD and WRITE_FD and close every other descriptor above stderr; the
    variable that named them goes (os.environ.pop unsets it in the process's environment too)."""
    read_fd, write_fd = map(int, os.environ.pop("LINEIT_HOST_PIPES").split())
    if write_fd == READ_FD:  # a pipe where the other one goes: copied out of the way first
        write_fd = os.dup(write_fd)
    if read_fd == WRITE_FD:
        read_fd = os.dup(read_fd)
    os.dup2(read_fd, READ_FD)
    os.dup2(write_fd, WRITE_FD)
    os.closerange(WRITE_FD + 1, 0x7FFFFFFF)


def confined(channel: Channel) -> dict[str, Any]:
    """Read the configuration and confine this process with it; returns only what the host needs
    afterwards. Nothing else of it stays: the dict is emptied, the buffer it was read into
    zeroed, and the modules that confinement imported (the Landlock tier's ctypes) are dropped."""
    sys.path.insert(0, __file__.rpartition("/")[0])  # the runtime folder (-I leaves it out)
    modules = set(sys.modules)
    import host_confinement as confinement

    del sys.path[0]
    config = channel.receive()
    try:
        confinement.confine(config)
    except BaseException as error:
        os.write(2, f"confinement failed: {error!r}\n".encode())
        os._exit(70)
    if config.get("canary"):
        _signal.signal(_signal.SIGXFSZ, _signal.SIG_IGN)
        channel.send(CONFINED)
        channel.send(CANARY, confinement.run_canary(config))
        os._exit(0)
    kept = {name: config[name] for name in ("lib", "packages", "bot_entry")}
    config.clear()
    channel.buffer[:] = bytes(len(channel.buffer))
    for name in set(sys.modules) - modules:
        del sys.modules[name]
    return kept


def main() -> None:
    global _reserve, _spare_fd
    _reserve = bytearray(256 * 1024)
    os.environ.pop("PWD", None)  # bubblewrap sets it, a plain process does not
    take_pipes()
    channel = Channel(READ_FD, WRITE_FD)
    config = confined(channel)
    _signal.signal(_signal.SIGXFSZ, _signal.SIG_IGN)  # stderr is size-capped: drop, do not die
    os.dup2(2, 1)
    sys.stdout = sys.stderr = TolerantWriter()
    channel.send(CONFINED)
    channel.receive()  # "load": the parent has found this process, the bot's code may run
    sys.path.insert(0, config["lib"])
    if config["packages"]:
        sys.path.append(config["packages"])  # after the bot's folder and lib: they come first
    sys.dont_write_bytecode = True  # every folder is read-only: do not even try (a mkdir per import)
    _spare_fd = os.dup(2)  # freed before reporting a failure, so traceback can still be imported
    try:
        from lineit.botkit.interface import BotLoadError, load_policy

        try:
            policy = load_policy(config["bot_entry"])
        except BotLoadError as error:
            channel.fail("load", str(error))
            os._exit(0)
    except BaseException as error:
        report_error(channel, "load", error)
        os._exit(0)
    channel.send(READY)
    serve(channel, policy)


if __name__ == "__main__":
    main()
