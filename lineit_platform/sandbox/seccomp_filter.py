"""The seccomp filter every bot runs under, compiled once per process with libseccomp (pyseccomp).

Default allow, and EPERM for everything a card-game bot never needs and an attacker wants:
sockets of every family, new processes (clone without CLONE_THREAD, fork, vfork; clone3 answers
ENOSYS so glibc falls back to clone for threads), exec, signals to anyone, tracing and other
processes' memory, namespaces and mounts, kernel attack surface (bpf, perf, userfaultfd, keyrings,
io_uring), shared memory that outlives the process (System V IPC, POSIX queues, memfd),
privilege and limit changes, CPU affinity (a match is pinned to one CPU) and the parent-death
signal (the Landlock tier relies on it).

``program(complete=False)`` is handed to bubblewrap, which must still exec the interpreter after
loading it, and whose host must still set its rlimits; the bot host then stacks
``program(complete=True)`` (which adds exec and limit changes) on itself before it reports
"confined". The Landlock tier loads only the complete program, in the host.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import tempfile

CLONE_THREAD = 0x00010000
PR_SET_PDEATHSIG = 1
OPTIMIZE_ATTRIBUTE = 8  # SCMP_FLTATR_CTL_OPTIMIZE

DENIED = (
    # network, every family
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    # new processes
    "fork",
    "vfork",
    # other processes
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "kcmp",
    "pidfd_open",
    "pidfd_getfd",
    "pidfd_send_signal",
    "kill",
    "tkill",
    "tgkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "move_pages",
    "migrate_pages",
    # namespaces, mounts
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "name_to_handle_at",
    "open_by_handle_at",
    # kernel attack surface
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "modify_ldt",
    "iopl",
    "ioperm",
    "syslog",
    "acct",
    "quotactl",
    "fanotify_init",
    "swapon",
    "swapoff",
    "reboot",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    # memory and IPC that outlive the process or escape RLIMIT_AS
    "memfd_create",
    "memfd_secret",
    "shmget",
    "shmat",
    "shmctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    # privileges and limits
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setfsuid",
    "setfsgid",
    "setgroups",
    "capset",
    "sched_setaffinity",
)

# Denied only once the host has set its limits and stands where the bot will run.
HOST_STAGE = ("execve", "execveat", "setrlimit")


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
        deny = seccomp.ERRNO(errno.EPERM)
        syscall_filter = seccomp.SyscallFilter(seccomp.ALLOW)
        # a binary tree, so the hot read/write calls skip the list (libseccomp >= 2.5; else linear)
        with contextlib.suppress(OSError):
            syscall_filter.set_attr(OPTIMIZE_ATTRIBUTE, 2)
        for name in DENIED + (HOST_STAGE if complete else ()):
            _add(seccomp, syscall_filter, deny, name)
        syscall_filter.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
        syscall_filter.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
        syscall_filter.add_rule(deny, "prctl", seccomp.Arg(0, seccomp.EQ, PR_SET_PDEATHSIG))
        if complete:
            syscall_filter.add_rule(deny, "prlimit64", seccomp.Arg(2, seccomp.NE, 0))
        with tempfile.TemporaryFile() as handle:
            syscall_filter.export_bpf(handle)
            handle.seek(0)
            return handle.read()
    except OSError as error:
        raise SeccompUnavailable(f"cannot compile the seccomp filter: {error}") from None


def _add(seccomp: object, syscall_filter: object, action: int, name: str) -> None:
    try:
        syscall_filter.add_rule(action, name)  # type: ignore[attr-defined]
    except (OSError, ValueError) as error:
        # A syscall this architecture does not have (e.g. modify_ldt on arm64) cannot be called.
        if getattr(error, "errno", None) not in (errno.EINVAL, errno.EFAULT, errno.EDOM, None):
            raise
