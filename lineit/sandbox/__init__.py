"""Running untrusted bots, each in its own isolated process. Pure: no Django.

Tiers (docs/sandbox.md), chosen at start-up by trying each one for real:

* ``bubblewrap``: bwrap namespaces + seccomp + rlimits (the default);
* ``landlock``: Landlock + seccomp + rlimits + parent-death signal, where user namespaces are
  blocked; a bot there sees the machine's paths, so untrusted bots run in it only when
  ``SANDBOX_LANDLOCK_ACCEPT_HOST_VIEW`` accepts that;
* none: untrusted bots are refused (``SandboxUnavailable``).

``SANDBOX_TIER`` (bubblewrap or landlock) asks for one; ``require_tier()`` is the one decision,
made the same way by the command line, the worker and ``lineit doctor``.

The engine and the referee run in the calling process; each bot runs in a bot host that talks
to its SandboxedPlayer over two pipes.
"""

from .launch import BUBBLEWRAP, LANDLOCK, TIERS
from .match import run_sandboxed_match
from .player import SandboxedPlayer
from .tiers import (
    SandboxUnavailable,
    TierReport,
    detect_tier,
    doctor_report,
    host_view_accepted,
    requested_tier,
    require_tier,
)
from .turns import TurnGate

__all__ = [
    "BUBBLEWRAP",
    "LANDLOCK",
    "TIERS",
    "SandboxUnavailable",
    "SandboxedPlayer",
    "TierReport",
    "TurnGate",
    "detect_tier",
    "doctor_report",
    "host_view_accepted",
    "requested_tier",
    "require_tier",
    "run_sandboxed_match",
]
