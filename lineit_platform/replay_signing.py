"""The site's word on the replays it serves: each leaves the site signed with Ed25519
(lineit.replay_signature; docs/replay-format.md, "Signatures"), by the key REPLAY_SIGNING_KEY,
whose public half is published at /api/replays/public-key/ and /.well-known/lineit-replay-key.pem.

Stored replays stay as the referee wrote them: a replay is brought to the current format and
signed as it is served (about 0.2 ms a replay: benchmarks/replay_signing.py), so a key can
change without rewriting a stored row. Without REPLAY_SIGNING_KEY, DEBUG and the embedded default
(SQLite) sign with a key made once in VAR_DIR; production refuses to start (lineit.E009).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from lineit.engine import ReplayError
from lineit.engine.replay import upgrade_replay
from lineit.replay_signature import ALGORITHM, key_id, public_key_pem, sign_replay

DEFAULT_KEY_FILE = "replay-signing-key.pem"


def read_private_key(text: str) -> Ed25519PrivateKey:
    """REPLAY_SIGNING_KEY's value: a PEM private key (``-----BEGIN PRIVATE KEY-----``, PKCS#8, as
    ``openssl genpkey -algorithm ed25519`` writes it) or the key's 32 bytes in base64. ValueError
    says why it is neither, without quoting it."""
    text = text.strip().replace("\\n", "\n")  # a PEM on one line of an environment file
    if text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_private_key(text.encode(), password=None)
        except (ValueError, TypeError) as error:
            raise ValueError(f"not a readable unencrypted PEM private key ({type(error).__name__})") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"a {type(key).__name__.removeprefix('_')}, not an Ed25519 private key")
        return key
    try:
        raw = base64.b64decode(text, validate=True)
    except binascii.Error:
        raise ValueError("neither a PEM private key nor base64") from None
    if len(raw) != 32:
        raise ValueError(f"base64 of {len(raw)} bytes, not of an Ed25519 key's 32")
    return Ed25519PrivateKey.from_private_bytes(raw)


def may_make_a_key() -> bool:
    """Whether a missing REPLAY_SIGNING_KEY is made here: DEBUG, or the embedded default (not
    PostgreSQL), as for SECRET_KEY (lineit.E007)."""
    return settings.DEBUG or not settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


def signing_key() -> Ed25519PrivateKey:
    """The key every served replay is signed with; ImproperlyConfigured in production without one."""
    return _key(settings.REPLAY_SIGNING_KEY, str(settings.VAR_DIR), may_make_a_key())


@lru_cache(maxsize=4)
def _key(configured: str, var_dir: str, may_make: bool) -> Ed25519PrivateKey:
    if configured:
        return read_private_key(configured)  # the settings read it once already: it is readable
    if not may_make:
        raise ImproperlyConfigured("REPLAY_SIGNING_KEY is not set: production signs replays with a key of its own")
    return _made_key(Path(var_dir) / DEFAULT_KEY_FILE)


def _made_key(path: Path) -> Ed25519PrivateKey:
    """The key in ``path``, made there first if there is none: written under another name and
    linked into place, so that of two processes making one at once, both use the first."""
    if not path.exists():
        made = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(made)
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            with contextlib.suppress(OSError):
                draft.unlink()
    return read_private_key(path.read_text())


def signed_replay(document: Mapping[str, Any]) -> dict[str, Any]:
    """The replay as the site serves it: in the current format (older stored versions read as
    the engine reads them) and signed. A stored document the engine cannot read is signed as it
    is: the signature says only that the site served it."""
    try:
        current: Mapping[str, Any] = upgrade_replay(document)
    except ReplayError:
        current = document
    return sign_replay(current, signing_key())


def public_key_answer() -> dict[str, str]:
    """What /api/replays/public-key/ answers: the algorithm, the key id signatures name, the
    public key's 32 bytes in base64 and its PEM (the file /.well-known/lineit-replay-key.pem)."""
    public_key = signing_key().public_key()
    return {
        "algorithm": ALGORITHM,
        "key_id": key_id(public_key),
        "public_key": base64.b64encode(public_key.public_bytes_raw()).decode("ascii"),
        "pem": public_key_pem(public_key),
    }
