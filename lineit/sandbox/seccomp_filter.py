"""The seccomp filter every bot runs under, compiled once per process with libseccomp (pyseccomp).

An allow-list: the system calls CPython and the bot host need, measured by tracing real matches
of every built-in bot and of test bots that use the standard library broadly, threads, timers,
signal handlers and every way of failing (``benchmarks/syscalls.py`` prints the measurement).
Every other call answers EPERM, so a call nobody thought of is denied by default: sockets of
every family, new processes, exec, signals to anyone, tracing, namespaces and mounts, changing a
file's mode, owner, times or extended attributes, watching files (inotify, fanotify, dnotify),
locks, kernel attack surface (bpf, perf, userfaultfd, keyrings, io_uring), shared memory that
outlives the process, privilege and limit changes, CPU affinity (a match is pinned to one CPU)
and the parent-death signal (the Landlock tier relies on it).

Some allowed calls are allowed only with harmless arguments: ``clone`` only for a thread
(CLONE_THREAD; ``clone3`` answers ENOSYS so glibc falls back to clone), ``prlimit64`` only to
read its own limits, ``ioctl`` and ``fcntl`` only for the few requests the interpreter makes, ``prctl``
only to name a thread, ``open`` and ``openat`` only to read (for writing: EROFS).

``program(complete=False)`` is handed to bubblewrap, which must still exec the interpreter after
loading it, and whose host must still set its rlimits and load the complete program: it also
allows HOST_STAGE. The bot host then stacks ``program(complete=True)`` on itself before it
reports "confined" (stacked filters: the stricter answer wins). The Landlock tier loads only the
complete program, in the host.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import tempfile

CLONE_THREAD = 0x00010000
OPTIMIZE_ATTRIBUTE = 8  # SCMP_FLTATR_CTL_OPTIMIZE

# Allowed with any arguments. Names an architecture lacks (open and stat on arm64) are skipped.
ALLOWED = (
    # files: reading, and what the bubblewrap or Landlock layer refuses to write
    "read",
    "readv",
    "pread64",
    "write",
    "writev",
    "lseek",
    "close",
    "close_range",
    "stat",
    "fstat",
    "lstat",
    "newfstatat",
    "statx",
    "access",
    "faccessat",
    "faccessat2",
    "readlink",
    "readlinkat",
    "getdents64",
    "getcwd",
    "dup",
    "dup2",
    "dup3",
    "pipe2",
    # waiting on its own descriptors (select, selectors)
    "poll",
    "ppoll",
    "select",
    "pselect6",
    "epoll_create1",
    "epoll_ctl",
    "epoll_wait",
    "epoll_pwait",
    # memory
    "brk",
    "mmap",
    "munmap",
    "mremap",
    "mprotect",
    "madvise",
    # threads and their synchronisation
    "futex",
    "set_robust_list",
    "rseq",
    "sched_yield",
    "exit",
    "exit_group",
    # signals delivered to itself by its own timers
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "rt_sigpending",
    "rt_sigsuspend",
    "rt_sigtimedwait",
    "sigaltstack",
    "restart_syscall",
    "setitimer",
    "getitimer",
    "alarm",
    # time, identity and resources: reading its own (calls that take another process's id, and
    # so would tell which processes exist, are left out or allowed for the caller itself only;
    # calls that describe the machine are left out: sysinfo (its uptime, load, memory and number
    # of processes), getgroups (the worker's groups) and sched_getaffinity (which CPUs it has,
    # and which one the match was given); uname stays, numpy's import reads it: bubblewrap names
    # the machine "sandbox", the kernel's release is the machine's)
    "clock_gettime",
    "clock_getres",
    "clock_nanosleep",
    "nanosleep",
    "gettimeofday",
    "time",
    "getrandom",
    "getpid",
    "gettid",
    "getppid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getresuid",
    "getresgid",
    "getpgrp",
    "getrlimit",
    "getrusage",
    "times",  # its own CPU times (and ticks since boot: the monotonic clock tells as much, see docs)
    "uname",
    "umask",  # the host sets it (0o022) before the filter: the worker's own never shows
)
# Opening for writing answers EROFS, "read-only file system", before the path is even looked up:
# the same answer in every tier (a read-only bind says EROFS, Landlock EACCES), and no way to
# tell through it whether a path exists. Nothing in a sandbox is writable anyway.
WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000  # O_WRONLY O_RDWR O_CREAT O_TRUNC (O_TMPFILE includes O_WRONLY|O_RDWR)
OPEN_FLAGS_ARGUMENT = {"open": 1, "openat": 2}

# ioctl requests (asm-generic numbers, the same on x86_64 and arm64): isatty, the terminal size
# (answered ENOTTY: the bot has no terminal), bytes readable, non-blocking, close-on-exec.
IOCTLS = (0x5401, 0x5413, 0x541B, 0x5421, 0x5451, 0x5450)  # TCGETS TIOCGWINSZ FIONREAD FIONBIO FIOCLEX FIONCLEX
# fcntl commands: F_DUPFD F_GETFD F_SETFD F_GETFL F_SETFL F_DUPFD_CLOEXEC (no locks, leases,
# F_NOTIFY or pipe resizing)
FCNTLS = (0, 1, 2, 3, 4, 1030)
PRCTL_THREAD_NAMES = (15, 16)  # PR_SET_NAME, PR_GET_NAME
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38

# Allowed only in the program given to bubblewrap: its init runs under it too and waits for the
# host; bwrap execs the interpreter; the dynamic loader and libc start up; the host sets its
# rlimits (prlimit64, below) and loads the complete program (prctl, below).
# The interpreter's start-up asks sysinfo too (glibc's qsort sizes its buffer by the machine's
# memory): allowed there, as in the Landlock tier, where start-up runs before any filter; the bot
# never can (the host's complete program, stacked on this one, refuses it).
HOST_STAGE = ("execve", "arch_prctl", "set_tid_address", "wait4", "sysinfo")


# Allowed with some arguments only (program() sets which).
CONDITIONAL = ("clone", "ioctl", "fcntl", "prctl", "prlimit64", "open", "openat")


def allowed_calls() -> frozenset[str]:
    """Every call some rule of the complete program allows (for tests and benchmarks/syscalls.py)."""
    return frozenset(ALLOWED + CONDITIONAL)


class SeccompUnavailable(Exception):
    """libseccomp or pyseccomp is missing, or the filter could not be compiled."""


@functools.cache
def program(*, complete: bool) -> bytes:
    """The compiled BPF program (struct sock_filter array) for this machine's architecture."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as error:
        raise SeccompUnavailable(f"pyseccomp/libseccomp not usable: {error}") from None
    try:
        allow = seccomp.ALLOW
        syscall_filter = seccomp.SyscallFilter(seccomp.ERRNO(errno.EPERM))
        # a binary tree, so the hot read/write calls skip the list (libseccomp >= 2.5; else linear)
        with contextlib.suppress(OSError):
            syscall_filter.set_attr(OPTIMIZE_ATTRIBUTE, 2)
        for name in ALLOWED + (() if complete else HOST_STAGE):
            _add(syscall_filter, allow, name)
        _add(syscall_filter, allow, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, CLONE_THREAD))
        _add(syscall_filter, seccomp.ERRNO(errno.ENOSYS), "clone3")
        for request in IOCTLS:
            _add(syscall_filter, allow, "ioctl", seccomp.Arg(1, seccomp.EQ, request))
        for command in FCNTLS:
            _add(syscall_filter, allow, "fcntl", seccomp.Arg(1, seccomp.EQ, command))
        for option in PRCTL_THREAD_NAMES + (() if complete else (PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP)):
            _add(syscall_filter, allow, "prctl", seccomp.Arg(0, seccomp.EQ, option))
        # its own limits only, and in the complete program only to read them
        itself = seccomp.Arg(0, seccomp.EQ, 0)
        _add(syscall_filter, allow, "prlimit64", itself, *((seccomp.Arg(2, seccomp.EQ, 0),) if complete else ()))
        for name, argument in OPEN_FLAGS_ARGUMENT.items():
            _add(syscall_filter, allow, name, seccomp.Arg(argument, seccomp.MASKED_EQ, WRITE_FLAGS, 0))
            for flag in (0o1, 0o2, 0o100, 0o1000):
                _add(
                    syscall_filter,
                    seccomp.ERRNO(errno.EROFS),
                    name,
                    seccomp.Arg(argument, seccomp.MASKED_EQ, flag, flag),
                )
        with tempfile.TemporaryFile() as handle:
            syscall_filter.export_bpf(handle)
            handle.seek(0)
            return handle.read()
    except OSError as error:
        raise SeccompUnavailable(f"cannot compile the seccomp filter: {error}") from None


def _add(syscall_filter: object, action: int, name: str, *conditions: object) -> None:
    try:
        syscall_filter.add_rule(action, name, *conditions)  # type: ignore[attr-defined]
    except (OSError, ValueError) as error:
        # A syscall this architecture does not have (e.g. open on arm64) cannot be called.
        if getattr(error, "errno", None) not in (errno.EINVAL, errno.EFAULT, errno.EDOM, None):
            raise
