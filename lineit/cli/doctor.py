"""``lineit doctor``: which engine build runs, which sandbox tier works on this machine, and why
the others do not."""

from __future__ import annotations

import argparse
from typing import Any

from .errors import CommandError


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "doctor",
        help="check which sandbox tier can run bots here",
        description=(
            "Start a sandboxed child in each isolation tier and report what works, and which tier bots "
            "run in (SANDBOX_TIER, when set, chooses one). The exit status is non-zero when that tier "
            "does not work: then only --in-process matches (trusted bots) can run."
        ),
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from lineit.engine import IMPLEMENTATION, WHY_NOT_COMPILED

    print(f"engine: {IMPLEMENTATION}" + (f" ({WHY_NOT_COMPILED})" if WHY_NOT_COMPILED else " (mypyc)"))
    try:
        from lineit.sandbox import SandboxUnavailable, doctor_report, require_tier
    except ImportError as error:
        raise CommandError(f"the sandbox is not installed ({error})") from None
    print(doctor_report())
    try:
        require_tier()  # the decision every match makes (SANDBOX_TIER, or the best that works)
    except SandboxUnavailable:
        raise CommandError("no sandbox tier to run bots in here: untrusted bots cannot run") from None
    return 0
