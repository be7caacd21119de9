"""How a bot host ended: waiting for it, and the failure its exit status means."""

from __future__ import annotations

import math
import os
import select
import signal

from lineit.botkit.failures import CPU_LIMIT, CRASH, EXITED, PROTOCOL

from .host import PIPE_LOST


def wait_for_exit(pidfd: int, seconds: float) -> None:
    """Until the process of ``pidfd`` has exited, or ``seconds`` have passed."""
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)  # a pidfd turns readable when its process exits
    poller.poll(int(seconds * 1000))


def unreaped(pid: int) -> tuple[int, float] | None:
    """How a process that has ended but is not reaped yet ended, as Popen.returncode says it
    (-signal, or the exit status), and the CPU seconds it used, all its threads together; None
    if it is still running or gone. Read from /proc/PID/stat, whose field 52 holds the wait
    status of a zombie (and fields 14 and 15 its user and system time)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
    except OSError:
        return None
    if len(fields) < 50 or fields[0] != b"Z":
        return None
    status = int(fields[49])
    cpu_seconds = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return (-(status & 0x7F) if status & 0x7F else (status >> 8) & 0xFF), cpu_seconds


def describe_exit(
    status: int, *, bubblewrap: bool, cpu_seconds: float = 0.0, cpu_limit: float = math.inf
) -> tuple[str, str]:
    """Failure kind and message for a host that ended by itself. ``bubblewrap``: the status is
    bwrap's, which reports a signal death as 128 + signal, so a bot calling os._exit(152) would
    look killed by SIGXCPU: read the host's own status with unreaped() while bwrap's init
    (kept stopped) cannot reap it, and pass it with ``bubblewrap=False``.

    A bot that ignores, handles or blocks SIGXCPU is killed by the kernel at the hard CPU limit
    with SIGKILL: ``cpu_seconds`` (what it used) at or over ``cpu_limit`` (the soft limit) makes
    that SIGKILL a ``cpu_limit`` too, not a crash."""
    if status == PIPE_LOST:
        return PROTOCOL, "the bot closed or broke its pipes"
    number = -status if status < 0 else status - 128 if bubblewrap and status > 128 else 0
    if number:
        name = _signal_name(number)
        if number == signal.SIGXCPU:
            return CPU_LIMIT, f"the bot used its CPU time limit ({name})"
        if number == signal.SIGKILL and cpu_seconds >= cpu_limit:
            return CPU_LIMIT, "the bot used its CPU time limit (SIGKILL at the hard limit: it did not stop at SIGXCPU)"
        return CRASH, f"the bot's process was killed by {name}"
    return EXITED, f"the bot's process exited with status {status}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
