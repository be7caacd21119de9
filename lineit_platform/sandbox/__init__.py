"""Running untrusted bots, each in its own isolated process. Pure: no Django.

Tiers (docs/sandbox.md), chosen at start-up by trying each one for real:

* ``bubblewrap``: bwrap namespaces + seccomp + rlimits (the default);
* ``landlock``: Landlock + seccomp + rlimits + parent-death signal, where user namespaces are
  blocked;
* none: untrusted bots are refused (``SandboxUnavailable``).

The engine and the referee run in the calling process; each bot runs in a bot host that talks
to its SandboxedPlayer over two pipes.
"""

from .launch import BUBBLEWRAP, LANDLOCK, TIERS
from .match import run_sandboxed_match
from .player import SandboxedPlayer, TurnGate
from .tiers import SandboxUnavailable, TierReport, detect_tier, doctor_report

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
    "run_sandboxed_match",
]
