"""The platform's word on a replay: an Ed25519 signature over the whole document
(docs/replay-format.md, "Signatures").

What the moves cannot show (that a bot really timed out, who played each seat) is the producer's
word; the platform signs every replay it serves, so that an edit of any field of a downloaded
replay fails ``lineit verify --key``. A signed replay carries

    "signature": {"algorithm": "Ed25519", "key_id": "<16 hex digits>", "value": "<base64>"}

``value`` is the 64-byte Ed25519 signature, in standard base64, of the replay's canonical form:
the document without its ``signature`` field as JSON with the keys of every object sorted, no
whitespace, every character outside ASCII escaped as ``\\uXXXX`` (UTF-16 pairs above U+FFFF),
encoded as ASCII: ``json.dumps(document, sort_keys=True, separators=(",", ":"),
ensure_ascii=True)``. ``key_id`` names the key that signed it: the first 16 hex digits of the
SHA-256 of the 32-byte public key.

Checking needs the ``cryptography`` package, the kit's optional extra ``verify`` (``pip install
"lineit-kit[verify]"``): it is imported only when a signature is made or checked, so a bot
author who never checks one does not install it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, NamedTuple

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

SIGNATURE_FIELD: Final = "signature"  # lineit.engine.replay.SIGNATURE_FIELD: the engine lets it be
ALGORITHM: Final = "Ed25519"
SIGNATURE_KEYS: Final = ("algorithm", "key_id", "value")
KEY_ID_DIGITS: Final = 16
MAX_KEY_FILE_BYTES: Final = 64 * 1024  # a public key is 113 bytes of PEM; the API's answer under 1 KB
INSTALL_HINT: Final = "pip install 'lineit-kit[verify]'"


class SignatureError(ValueError):
    """A key or a signature that cannot be read; the message says why, in one line."""


class SignatureUnavailable(SignatureError):
    """The cryptography package is not installed."""


class SignatureCheck(NamedTuple):
    """``ok``: the signature is the given key's over this very document. ``key_id``: the key the
    replay names (None when it is unsigned or its signature is malformed)."""

    ok: bool
    message: str
    key_id: str | None = None


def canonical_bytes(document: Mapping[str, Any]) -> bytes:
    """What is signed: the replay without its signature, in its canonical JSON form."""
    unsigned = {key: value for key, value in document.items() if key != SIGNATURE_FIELD}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _ed25519() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise SignatureUnavailable(
            f"checking a signature needs the cryptography package, which is not installed: {INSTALL_HINT}"
        ) from None
    return ed25519


def key_id(public_key: Ed25519PublicKey) -> str:
    return hashlib.sha256(public_key.public_bytes_raw()).hexdigest()[:KEY_ID_DIGITS]


def public_key_pem(public_key: Ed25519PublicKey) -> str:
    """The public key as PEM (SubjectPublicKeyInfo, ``-----BEGIN PUBLIC KEY-----``): the file
    the platform publishes and ``lineit verify --key`` reads."""
    from cryptography.hazmat.primitives import serialization

    return public_key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def sign_replay(document: Mapping[str, Any], private_key: Ed25519PrivateKey) -> dict[str, Any]:
    """The replay with its signature by ``private_key`` (one it held before is replaced)."""
    value = private_key.sign(canonical_bytes(document))
    signature = {
        "algorithm": ALGORITHM,
        "key_id": key_id(private_key.public_key()),
        "value": base64.b64encode(value).decode("ascii"),
    }
    return {**{key: item for key, item in document.items() if key != SIGNATURE_FIELD}, SIGNATURE_FIELD: signature}


def read_signature(document: Mapping[str, Any]) -> dict[str, str] | None:
    """The replay's signature, None when it has none; SignatureError when it is malformed."""
    if SIGNATURE_FIELD not in document:
        return None
    signature = document[SIGNATURE_FIELD]
    if not isinstance(signature, Mapping) or sorted(signature) != sorted(SIGNATURE_KEYS):
        raise SignatureError(f"malformed signature: an object with exactly {', '.join(SIGNATURE_KEYS)} is expected")
    if not all(isinstance(signature[key], str) for key in SIGNATURE_KEYS):
        raise SignatureError(f"malformed signature: {', '.join(SIGNATURE_KEYS)} must be strings")
    if signature["algorithm"] != ALGORITHM:
        raise SignatureError(
            f"signature algorithm {signature['algorithm'][:40]!r} is unknown here (it knows {ALGORITHM})"
        )
    return dict(signature)


def check_signature(document: Mapping[str, Any], public_key: Ed25519PublicKey) -> SignatureCheck:
    """Whether the replay carries ``public_key``'s signature over every one of its fields."""
    from cryptography.exceptions import InvalidSignature

    try:
        signature = read_signature(document)
    except SignatureError as error:
        return SignatureCheck(False, str(error))
    expected = key_id(public_key)
    if signature is None:
        return SignatureCheck(
            False, f"unsigned: a key was given (key {expected}), and this replay carries no signature"
        )
    named = signature["key_id"]
    if named != expected:
        return SignatureCheck(
            False, f"signed by key {named[:KEY_ID_DIGITS]!r}, not by the key given (key {expected})", named
        )
    try:
        value = base64.b64decode(signature["value"], validate=True)
        public_key.verify(value, canonical_bytes(document))
    except (binascii.Error, InvalidSignature):
        return SignatureCheck(
            False,
            f"the signature of key {expected} does not match this replay: it was changed after it was signed",
            named,
        )
    return SignatureCheck(True, f"signature checked (key {expected})", named)


def read_public_key(data: bytes) -> Ed25519PublicKey:
    """An Ed25519 public key from a key file: PEM (``-----BEGIN PUBLIC KEY-----``, as published at
    /.well-known/lineit-replay-key.pem) or the JSON of the platform's /api/replays/public-key/.
    SignatureError says in one line why ``data`` is neither."""
    ed25519 = _ed25519()
    if len(data) > MAX_KEY_FILE_BYTES:
        raise SignatureError(f"larger than {MAX_KEY_FILE_BYTES // 1024} KiB: not a public key")
    text = data.decode("ascii", "replace").strip()
    if text.startswith("{"):
        text = _pem_from_json(data)
    if "PRIVATE KEY-----" in text:
        raise SignatureError("this is a private key: give the platform's public key, which it publishes")
    if not text.startswith("-----BEGIN PUBLIC KEY-----"):
        raise SignatureError(
            "not a public key: expected a PEM file (-----BEGIN PUBLIC KEY-----) or the JSON of /api/replays/public-key/"
        )
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        key = load_pem_public_key(text.encode("ascii", "replace"))
    except (ValueError, TypeError) as error:
        raise SignatureError(f"not a readable PEM public key ({str(error)[:100]})") from None
    except Exception as error:  # cryptography.exceptions.UnsupportedAlgorithm and the like
        raise SignatureError(f"not a usable public key ({type(error).__name__})") from None
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise SignatureError(f"a {type(key).__name__.removeprefix('_')}, not an Ed25519 public key")
    return key


def _pem_from_json(data: bytes) -> str:
    try:
        answer = json.loads(data)
    except RecursionError:
        raise SignatureError("not a public key (its JSON is nested too deeply)") from None
    except ValueError as error:  # JSONDecodeError, a number too long to convert, bytes not UTF-8
        raise SignatureError(f"not a public key (not JSON: {str(error)[:100]})") from None
    pem = answer.get("pem") if isinstance(answer, dict) else None
    if not isinstance(pem, str):
        raise SignatureError("not a public key: a JSON key file is the platform's answer, with its 'pem'")
    if answer.get("algorithm") not in (None, ALGORITHM):
        raise SignatureError(f"the key's algorithm is {str(answer.get('algorithm'))[:40]!r}, not {ALGORITHM}")
    return pem.strip()
