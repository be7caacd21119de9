"""``lineit doctor``: which engine build runs, which sandbox tier works on this machine, and why
the others do not; ``--json`` says the same for scripts."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from typing import Any

from .errors import CommandError

NO_TIER = "no sandbox tier to run bots in here: untrusted bots cannot run"
JSON_KEYS = """\
--json prints one JSON object with these keys (stable; new keys may be added):
  kit_version         lineit's version
  python              {"version", "implementation", "executable"}: the Python running lineit
  engine              {"implementation": "compiled" or "pure", "compiled": bool,
                      "why_not_compiled": a reason or null}
  kernel              {"release", "landlock_abi" (0: no Landlock)}
  uid                 the user id lineit runs as; running_as_root: bool
  bot_interpreter     the interpreter bots run with (the base Python, isolated)
  bwrap               the bubblewrap executable, or null
  tiers               [{"name", "works": bool, "reason"}], best first: each tier's check
  requested_tier      the tier SANDBOX_TIER asks for, or null (the best that works)
  chosen_tier         the tier bots run in, or null when it does not work
  error               why no tier can run bots (the exit status is then 1), or null"""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "doctor",
        help="check which sandbox tier can run bots here",
        description=(
            "Start a sandboxed child in each isolation tier and report what works, and which tier bots "
            "run in (SANDBOX_TIER, when set, chooses one). The exit status is non-zero when that tier "
            "does not work: then only --in-process matches (trusted bots) can run."
        ),
        epilog=JSON_KEYS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print the findings as one JSON object (keys below)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from lineit.engine import IMPLEMENTATION, WHY_NOT_COMPILED

    if args.json:
        return run_json()
    print(f"engine: {IMPLEMENTATION}" + (f" ({WHY_NOT_COMPILED})" if WHY_NOT_COMPILED else " (mypyc)"))
    try:
        from lineit.sandbox import SandboxUnavailable, doctor_report, require_tier
    except ImportError as error:
        raise CommandError(f"the sandbox is not installed ({error})") from None
    print(doctor_report())
    try:
        require_tier()  # the decision every match makes (SANDBOX_TIER, or the best that works)
    except SandboxUnavailable:
        raise CommandError(NO_TIER) from None
    return 0


def findings() -> dict[str, Any]:
    """What ``lineit doctor`` finds, as plain data (the keys of JSON_KEYS)."""
    from lineit import __version__
    from lineit.engine import IMPLEMENTATION, WHY_NOT_COMPILED

    found: dict[str, Any] = {
        "kit_version": __version__,
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "engine": {
            "implementation": IMPLEMENTATION,
            "compiled": IMPLEMENTATION == "compiled",
            "why_not_compiled": WHY_NOT_COMPILED or None,
        },
        "kernel": {"release": os.uname().release, "landlock_abi": 0},
        "uid": os.getuid(),
        "running_as_root": os.getuid() == 0,
        "bot_interpreter": None,
        "bwrap": None,
        "tiers": [],
        "requested_tier": None,
        "chosen_tier": None,
        "error": None,
    }
    try:
        from lineit.sandbox.launch import bwrap_path
        from lineit.sandbox.runtime import interpreter
        from lineit.sandbox.tiers import SandboxUnavailable, decide_tier, detect_tier, landlock_abi, requested_tier
    except ImportError as error:
        found["error"] = f"the sandbox is not installed ({error})"
        return found
    report = detect_tier(refresh=True)
    found["kernel"]["landlock_abi"] = landlock_abi()
    found["bot_interpreter"] = str(interpreter().executable)
    found["bwrap"] = bwrap_path()
    found["tiers"] = [{"name": tier, "works": ok, "reason": reason} for tier, ok, reason in report.attempts]
    try:
        found["requested_tier"] = requested_tier()
        found["chosen_tier"] = decide_tier(report, found["requested_tier"])
    except SandboxUnavailable as error:
        found["error"] = f"{NO_TIER}: {error}"
    return found


def run_json() -> int:
    found = findings()
    print(json.dumps(found, indent=2))
    if found["chosen_tier"] is None:
        raise CommandError(NO_TIER if found["tiers"] else found["error"])  # the line the text gives
    return 0
