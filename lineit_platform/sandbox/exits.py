"""How a bot host ended: waiting for it, and the failure its exit status means."""

from __future__ import annotations

import select
import signal

from lineit_platform.botkit.failures import CPU_LIMIT, CRASH, EXITED, PROTOCOL

HOST_PIPE_LOST = 125  # host.py's exit status when the bot closed or broke its pipes


def wait_for_exit(pidfd: int, seconds: float) -> None:
    """Until the process of ``pidfd`` has exited, or ``seconds`` have passed."""
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)  # a pidfd turns readable when its process exits
    poller.poll(int(seconds * 1000))


def unreaped_status(pid: int) -> int | None:
    """How a process that has ended but is not reaped yet ended, as Popen.returncode says it
    (-signal, or the exit status); None if it is still running or gone. Read from field 52 of
    /proc/PID/stat, which holds the wait status of a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
    except OSError:
        return None
    if len(fields) < 50 or fields[0] != b"Z":
        return None
    status = int(fields[49])
    return -(status & 0x7F) if status & 0x7F else (status >> 8) & 0xFF


def describe_exit(status: int, *, bubblewrap: bool) -> tuple[str, str]:
    """Failure kind and message for a host that ended by itself. ``bubblewrap``: the status is
    bwrap's, which reports a signal death as 128 + signal, so a bot calling os._exit(152) would
    look killed by SIGXCPU: read the host's own status with unreaped_status() while bwrap's init
    (kept stopped) cannot reap it, and pass it with ``bubblewrap=False``."""
    if status == HOST_PIPE_LOST:
        return PROTOCOL, "the bot closed or broke its pipes"
    number = -status if status < 0 else status - 128 if bubblewrap and status > 128 else 0
    if number:
        name = _signal_name(number)
        if number == signal.SIGXCPU:
            return CPU_LIMIT, f"the bot used its CPU time limit ({name})"
        return CRASH, f"the bot's process was killed by {name}"
    return EXITED, f"the bot's process exited with status {status}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
