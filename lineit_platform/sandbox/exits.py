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


def describe_exit(status: int, *, bubblewrap: bool) -> tuple[str, str]:
    """Failure kind and message for a host that ended by itself. bubblewrap reports a signal
    death as 128 + signal (so a bot calling os._exit(137) looks like SIGKILL there)."""
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
