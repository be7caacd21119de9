"""``lineit verify``: re-run replay files with the engine and check their recorded results, and
with ``--key`` the platform's signature over every field (lineit.replay_signature)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lineit.botkit.untrusted import safe_text
from lineit.engine import Verification, verify_replay
from lineit.replay_signature import (
    KEY_ID_DIGITS,
    MAX_KEY_FILE_BYTES,
    SignatureError,
    SignatureUnavailable,
    check_signature,
    read_public_key,
    read_signature,
)

from .errors import USAGE_EXIT, CommandError, InputRejected, UsageError
from .replayfile import MESSAGE_LENGTH, load_replay, read_replay_bytes

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "verify",
        help="verify replay files",
        description=(
            "Re-run each replay from its deck with this engine: every action must be legal, the "
            "recorded scores and ranks must be the ones the game gives, and the forfeits must agree "
            "with the moves (a forfeited seat's moves are the stand-in's from its failed decision on, "
            "and no other seat's are). What the moves cannot show (why a bot forfeited) is printed as "
            "unverified; the platform's signature vouches for it: with --key, a replay must carry that "
            "key's signature over every field, or it fails. Without --key, each line says whether the "
            "replay is unsigned or signed (and then that the signature was not checked). One line per "
            "file; the exit status is 0 only if every file verifies."
        ),
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="replay files (JSON)")
    parser.add_argument(
        "--key",
        type=Path,
        metavar="KEYFILE",
        help="the platform's public key: its /.well-known/lineit-replay-key.pem (PEM), or the JSON of its "
        "/api/replays/public-key/; needs the cryptography package (pip install 'lineit-kit[verify]')",
    )
    parser.set_defaults(handler=run)


def read_key(path: Path) -> Ed25519PublicKey:
    """The public key in ``path``; a file that holds none is a bad value of --key (UsageError)."""
    try:
        data = read_replay_bytes(path, MAX_KEY_FILE_BYTES, "a key")
    except CommandError as error:
        raise UsageError(f"--key {error}") from None
    try:
        return read_public_key(data)
    except SignatureUnavailable as error:
        raise CommandError(str(error)) from None
    except SignatureError as error:
        raise UsageError(f"--key {path}: {error}") from None


def verify_file(path: Path, key: Ed25519PublicKey | None = None) -> Verification:
    """The engine's verdict on the replay in ``path``, its message led by what its signature
    says: checked against ``key``, or (without one) whether it is signed at all. A signature
    that does not hold fails the replay whatever the engine finds."""
    document = load_replay(path)  # InputRejected: not a replay at all (run says so, exit 2)
    try:
        signature = read_signature(document)
    except SignatureError as error:
        return Verification(False, str(error))
    if key is not None:
        checked = check_signature(document, key)
        if not checked.ok:
            return Verification(False, checked.message)
        seal = checked.message
    elif signature is None:
        seal = "unsigned"
    else:
        seal = f"signed by key {signature['key_id'][:KEY_ID_DIGITS]!r}, signature not checked (no --key)"
    try:
        verdict = verify_replay(document)
    except Exception as error:  # a mangled document the engine did not anticipate
        verdict = Verification(False, f"malformed replay ({type(error).__name__}: {error})")
    return verdict._replace(message=f"{seal}; {verdict.message}")


def run(args: argparse.Namespace) -> int:
    key = read_key(args.key) if args.key is not None else None
    failed = rejected = 0
    for path in args.files:
        try:
            outcome = verify_file(path, key)
        except InputRejected as error:  # not a replay at all: bad input, exit 2 once all are told
            outcome = Verification(False, str(error).removeprefix(f"{path}: "))
            rejected += 1
        except CommandError as error:  # a file this user may not read
            outcome = Verification(False, str(error).removeprefix(f"{path}: "))
        failed += not outcome.ok
        # The message may quote the file (an illegal action string), which may come from anywhere.
        print(
            f"{'ok  ' if outcome.ok else 'FAIL'}  {safe_text(path)}: {safe_text(outcome.message, max_length=MESSAGE_LENGTH)}"
        )
    if failed and len(args.files) > 1:
        print(f"{failed} of {len(args.files)} replays did not verify")
    return USAGE_EXIT if rejected else 1 if failed else 0
