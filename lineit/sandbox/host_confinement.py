"""The bot host's confinement: rlimits, and in the Landlock tier the parent-death signal,
capabilities, no_new_privs and Landlock, then seccomp; and the canary, which tries every attack
once confined (tiers.py runs it to check a tier really works).

host.py imports this file from the runtime folder before it loads the bot. Like host.py it must
stay standard-library only and must not import the platform package: it runs inside the
sandbox, with -I -S and an empty environment, and its imports are part of every bot's start-up.
"""

from __future__ import annotations

import _signal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# Linux constants (asm-generic: identical on x86_64 and arm64).
PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2
RLIMITS = {
    "cpu": 0,
    "fsize": 1,
    "data": 2,
    "stack": 3,
    "core": 4,
    "rss": 5,
    "nproc": 6,
    "nofile": 7,
    "memlock": 8,
    "as": 9,
    "locks": 10,
    "sigpending": 11,
    "msgqueue": 12,
    "nice": 13,
    "rtprio": 14,
    "rttime": 15,
}
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
SYS_CAPSET = {"x86_64": 126, "aarch64": 91}


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
    """Lower every limit to its value; one the worker's own hard limit is already below stays at
    that hard limit (a process may lower its limits, never raise them)."""
    setrlimit = _libc_function("setrlimit")
    for name, (soft, hard) in limits.items():
        value = soft.to_bytes(8, sys.byteorder) + hard.to_bytes(8, sys.byteorder)  # struct rlimit, 64-bit
        if setrlimit(RLIMITS[name], value) < 0:
            _lower_to_ceiling(name, soft, hard)


def _lower_to_ceiling(name: str, soft: int, hard: int) -> None:
    import resource

    ceiling = resource.getrlimit(RLIMITS[name])[1]
    if ceiling == resource.RLIM_INFINITY or (soft <= ceiling and hard <= ceiling):
        raise OSError(f"setrlimit {name} ({soft}, {hard}) failed")
    resource.setrlimit(RLIMITS[name], (min(soft, ceiling), min(hard, ceiling)))


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
    os.umask(0o022)  # the filter lets a bot read its umask: never the worker's own
    if config["tier"] == "landlock":
        set_parent_death_signal(config["parent"])
        drop_capabilities()
    set_rlimits(config["rlimits"])
    if config["tier"] == "landlock":
        no_new_privileges()
        landlock(config["read_paths"])
    load_seccomp(config["seccomp"])


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
        os.kill(config.get("parent") or os.getppid(), 0)  # a bubblewrap host is not told its parent

    attempt("tcp socket", socket_attack)
    attempt("unix socket", unix_socket_attack)
    attempt("fork", fork_attack)
    attempt("write file", write_attack)
    attempt("read outside", read_attack)
    attempt("exec", exec_attack)
    attempt("signal parent", signal_attack)
    return "\n".join(results)
