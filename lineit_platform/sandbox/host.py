"""The bot host: the trusted program that runs inside the sandbox and loads one bot.

It is started as ``python -I -S host.py READ_FD WRITE_FD`` with an empty environment. Start-up
time matters (every bot of every match pays it), so before the bot it imports only os, marshal,
_signal and _ctypes (not ctypes: the few libc calls are made with _ctypes directly; the Landlock
tier imports ctypes), the bot interface (itself kept to os, sys and itertools) and nothing else of
the platform; traceback is imported only when a bot fails. Steps:

1. read the configuration frame (marshal, written by the trusted parent);
2. confine itself: rlimits; in the Landlock tier also the parent-death signal, capability drop,
   no_new_privs and a Landlock ruleset; then a seccomp filter (in the bubblewrap tier bwrap has
   already applied the main filter, and this one only forbids exec);
3. report ``C`` (confined), load the bot, report ``R`` (ready) or a failure;
4. answer requests until the parent closes the pipe.

Frames in both directions are a 4-byte big-endian length and a payload. Parent to host: the
4-byte number of the request and marshal of (operation, payload) (the parent is trusted, the host
decodes it straight from its reusable read buffer). Host to parent: one type byte, the 4-byte
number of the request answered and UTF-8 text, so the parent never decodes anything richer than
a string from the untrusted side.

This file is copied into the sandbox's read-only runtime folder; it must stay standard-library
only and must not import the platform package at module level.
"""

from __future__ import annotations

import _signal  # not signal: that one imports enum, functools and collections (milliseconds)
import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_FRAME = 1 << 20
HEADER = 4
SEQUENCE = 4  # every frame names the request it answers (protocol.py)
PIPE_LOST = 125  # exit status when the bot broke the host's pipes (player.py reads it as protocol)

# Host -> parent message types.
CONFINED = b"C"
READY = b"R"
ACTION = b"A"
ACK = b"K"
FAILURE = b"F"
CANARY = b"Y"

# Linux constants (asm-generic: identical on x86_64 and arm64).
PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2
RLIMITS = {"cpu": 0, "fsize": 1, "core": 4, "nofile": 7, "memlock": 8, "as": 9, "msgqueue": 12}
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
SYS_CAPSET = {"x86_64": 126, "aarch64": 91}

_reserve: bytearray | None = bytearray(256 * 1024)  # released on MemoryError so the host can still report it
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
        if len(body) > MAX_FRAME - 1 - SEQUENCE:
            body = body[: MAX_FRAME - 1 - SEQUENCE]
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


# ----------------------------------------------------------------------------- confinement
#
# The bubblewrap tier needs only prctl and setrlimit with plain integers and byte strings: a
# handful of foreign functions made from _ctypes directly, without the ctypes package (whose
# import costs several milliseconds at every bot's start-up). The Landlock tier needs
# structures and raw syscalls and imports ctypes itself.

_functions: dict[str, Any] = {}
_pointer_size = 8


def _libc_function(name: str) -> Any:
    """A libc function returning int, called with int or bytes (passed as a pointer) arguments,
    that keeps errno."""
    function = _functions.get(name)
    if function is None:
        global _pointer_size
        import _ctypes

        class Int(_ctypes._SimpleCData):
            _type_ = "i"

        class Pointer(_ctypes._SimpleCData):
            _type_ = "P"

        class Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
            _restype_ = Int

        _pointer_size = _ctypes.sizeof(Pointer)
        libc = _functions.setdefault("", _ctypes.dlopen(None, _ctypes.RTLD_LOCAL))  # type: ignore[arg-type]
        function = _functions[name] = Function(_ctypes.dlsym(libc, name))
    return function


def _check(result: int, what: str) -> int:
    if result < 0:
        import _ctypes

        error = _ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")
    return result


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def set_rlimits(limits: dict[str, tuple[int, int]]) -> None:
    setrlimit = _libc_function("setrlimit")
    for name, (soft, hard) in limits.items():
        value = soft.to_bytes(8, sys.byteorder) + hard.to_bytes(8, sys.byteorder)  # struct rlimit, 64-bit
        _check(setrlimit(RLIMITS[name], value), f"setrlimit {name}")


def drop_capabilities() -> None:
    """Landlock tier only: a root worker would otherwise keep its capabilities in the bot."""
    import ctypes

    libc = _libc()
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EPERM without CAP_SETPCAP, EINVAL past the last cap

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    number = SYS_CAPSET.get(os.uname().machine)
    if number is None:
        raise OSError(f"unsupported machine {os.uname().machine}")
    data = (Data * 2)()
    _check(libc.syscall(number, ctypes.byref(Header(0x20080522, 0)), data), "capset")


def set_parent_death_signal(parent: int) -> None:
    _check(_libc_function("prctl")(PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


def no_new_privileges() -> None:
    _check(_libc_function("prctl")(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")


def landlock(read_paths: list[str]) -> None:
    """Allow reading (and executing) only ``read_paths``; deny every other file-system access,
    TCP (ABI 4) and, from ABI 6, signals and abstract Unix sockets outside the sandbox."""
    import ctypes

    libc = _libc()
    abi = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0, 1)
    if abi < 1:
        raise OSError("Landlock is not available")
    fs, net, scoped = landlock_access(abi)
    attr = (ctypes.c_uint64 * 3)(fs, net, scoped)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = _check(libc.syscall(SYS_LANDLOCK_CREATE_RULESET, attr, size, 0), "landlock_create_ruleset")

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    read_dir, read_file, execute = 1 << 3, 1 << 2, 1 << 0
    for path in read_paths:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        allowed = read_file | execute | (read_dir if os.path.isdir(path) else 0)
        rule = PathBeneath(allowed, fd)
        _check(libc.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0), f"landlock rule {path}")
        os.close(fd)
    _check(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    os.close(ruleset)


def load_seccomp(program: bytes) -> None:
    import _ctypes

    prctl = _libc_function("prctl")

    class Byte(_ctypes._SimpleCData):
        _type_ = "B"

    class Filter(_ctypes.Array):
        _type_ = Byte  # struct sock_filter[], as bytes
        _length_ = len(program)

    buffer = Filter.from_buffer_copy(program)
    # struct sock_fprog {unsigned short len; struct sock_filter *filter;}: the pointer is aligned
    count = (len(program) // 8).to_bytes(2, sys.byteorder)
    fprog = count + bytes(_pointer_size - 2) + _ctypes.addressof(buffer).to_bytes(_pointer_size, sys.byteorder)
    no_new_privileges()
    _check(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog, 0, 0), "seccomp")


def landlock_access(abi: int) -> tuple[int, int, int]:
    fs = (1 << 13) - 1  # execute .. make_sym (ABI 1)
    if abi >= 2:
        fs |= 1 << 13  # refer
    if abi >= 3:
        fs |= 1 << 14  # truncate
    if abi >= 5:
        fs |= 1 << 15  # ioctl_dev
    net = 0b11 if abi >= 4 else 0  # bind_tcp, connect_tcp
    scoped = 0b11 if abi >= 6 else 0  # abstract unix sockets, signals
    return fs, net, scoped


def confine(config: dict[str, Any]) -> None:
    if config["tier"] == "landlock":
        set_parent_death_signal(config["parent"])
        drop_capabilities()
    set_rlimits(config["rlimits"])
    if config["tier"] == "landlock":
        no_new_privileges()
        landlock(config["read_paths"])
    load_seccomp(config["seccomp"])


def close_other_fds(keep: set[int]) -> None:
    low = 3
    for fd in sorted(keep):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, 256)


# ----------------------------------------------------------------------------- canary


def run_canary(config: dict[str, Any]) -> str:
    """Attacks that must all fail once confined. Each line: name, 'blocked' or 'OPEN', detail."""
    results = []

    def attempt(name: str, action: Callable[[], object]) -> None:
        try:
            action()
        except BaseException as error:
            results.append(f"{name}\tblocked\t{type(error).__name__}: {error}")
        else:
            results.append(f"{name}\tOPEN\t")

    def socket_attack() -> None:
        import _socket

        _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)

    def unix_socket_attack() -> None:
        import _socket

        _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)

    def fork_attack() -> None:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)

    def write_attack() -> None:
        for folder in ("/", "/tmp", config["bot_folder"], os.path.dirname(config["bot_entry"])):
            with open(os.path.join(folder, ".lineit-canary"), "w") as handle:
                handle.write("x")

    def read_attack() -> None:
        with open(config["secret"], "rb") as handle:
            handle.read()

    def exec_attack() -> None:
        # A missing program: ENOENT would mean exec is open, only EPERM means the filter said no.
        try:
            os.execv("/nonexistent/lineit-canary", ["canary"])
        except PermissionError:
            raise
        except OSError:
            return

    def signal_attack() -> None:
        os.kill(config["parent"], 0)

    attempt("tcp socket", socket_attack)
    attempt("unix socket", unix_socket_attack)
    attempt("fork", fork_attack)
    attempt("write file", write_attack)
    attempt("read outside", read_attack)
    attempt("exec", exec_attack)
    attempt("signal parent", signal_attack)
    return "\n".join(results)


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
    observation, an ``update`` request only what is not the very objects sent before, and of the
    players' views only the new ones, by seat (player.py): the host keeps the last observation
    and gives the bot a new top-level dict and a new players' list each time, sharing the
    unchanged values, as the engine shares them in-process."""
    receive, send, act = channel.receive, channel.send, policy.act
    observation: dict[str, Any] = {}  # the host's own: the bot gets a new dict (and players' list) each time
    while True:
        operation, payload = receive()
        try:
            if operation == "update" or operation == "act":
                if operation == "act":
                    observation = payload
                else:
                    changed = payload.get("players")
                    if type(changed) is dict:  # only the views that changed, by seat
                        views = observation["players"].copy()
                        for seat, view in changed.items():
                            views[seat] = view
                        payload["players"] = views
                    observation.update(payload)
                given = observation.copy()
                views = given.get("players")
                if type(views) is list:
                    given["players"] = views.copy()
                action = act(given)
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


def main() -> None:
    global _spare_fd
    read_fd, write_fd = int(sys.argv[1]), int(sys.argv[2])
    close_other_fds({read_fd, write_fd})
    channel = Channel(read_fd, write_fd)
    config = channel.receive()
    try:
        confine(config)
    except BaseException as error:
        os.write(2, f"confinement failed: {error!r}\n".encode())
        os._exit(70)
    _signal.signal(_signal.SIGXFSZ, _signal.SIG_IGN)  # stderr is size-capped: drop, do not die
    os.dup2(2, 1)
    sys.stdout = sys.stderr = TolerantWriter()
    channel.send(CONFINED)
    if config.get("canary"):
        channel.send(CANARY, run_canary(config))
        os._exit(0)
    sys.path.insert(0, config["lib"])
    _spare_fd = os.dup(2)  # freed before reporting a failure, so traceback can still be imported
    try:
        from lineit_platform.botkit.interface import BotLoadError, load_policy

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
