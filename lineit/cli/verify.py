"""``lineit verify``: re-run replay files with the engine and check their recorded results."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lineit.botkit.untrusted import safe_text
from lineit.engine import Verification, verify_replay

from .errors import CommandError
from .replayfile import MESSAGE_LENGTH, load_replay


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "verify",
        help="verify replay files",
        description=(
            "Re-run each replay from its deck with this engine: every action must be legal, the "
            "recorded scores and ranks must be the ones the game gives, and the forfeits must agree "
            "with the moves (a forfeited seat's moves are the stand-in's from its failed decision on). "
            "What the moves cannot show (why a bot forfeited) is printed as unverified. One line per "
            "file; the exit status is 0 only if every file verifies."
        ),
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="replay files (JSON)")
    parser.set_defaults(handler=run)


def verify_file(path: Path) -> Verification:
    try:
        document = load_replay(path)
    except CommandError as error:
        return Verification(False, str(error).removeprefix(f"{path}: "))
    try:
        return verify_replay(document)
    except Exception as error:  # a mangled document the engine did not anticipate
        return Verification(False, f"malformed replay ({type(error).__name__}: {error})")


def run(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.files:
        outcome = verify_file(path)
        failed += not outcome.ok
        # The message may quote the file (an illegal action string), which may come from anywhere.
        print(
            f"{'ok  ' if outcome.ok else 'FAIL'}  {safe_text(path)}: {safe_text(outcome.message, max_length=MESSAGE_LENGTH)}"
        )
    if failed and len(args.files) > 1:
        print(f"{failed} of {len(args.files)} replays did not verify")
    return 1 if failed else 0
