"""``lineit verify --key``: the platform's signature checked with the engine's verdict
(lineit/replay_signature.py, docs/replay-format.md "Signatures"). A replay signed by the key
verifies; one edited in any field, signed by another key, or unsigned fails; without --key the
line says whether a replay is signed; a key file that is none is refused in one line (status 2)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from cli_helpers import assert_one_line_error
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import resolve_bot
from lineit.replay_signature import key_id, public_key_pem, sign_replay

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
KEY_ID = key_id(KEY.public_key())


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("replays")
    result = run_match(MatchSpec(num_players=2, games=1, seed=11), [InProcessPlayer(resolve_bot("random"))] * 2)
    document = json.loads(json.dumps(result.games[0].replay))
    signed = sign_replay(document, KEY)
    forged = json.loads(json.dumps(signed))
    forged["players"][0] = "someone else"  # who played: an edit the engine cannot see
    other = sign_replay(document, Ed25519PrivateKey.generate())
    written = {"unsigned": document, "signed": signed, "forged": forged, "other key": other}
    paths = {}
    for name, content in written.items():
        paths[name] = folder / f"{name.replace(' ', '-')}.json"
        paths[name].write_text(json.dumps(content, indent=1))
    paths["pem"] = folder / "lineit-replay-key.pem"
    paths["pem"].write_text(public_key_pem(KEY.public_key()))
    paths["api json"] = folder / "public-key.json"
    pem = public_key_pem(KEY.public_key())
    raw = base64.b64encode(KEY.public_key().public_bytes_raw()).decode()
    paths["api json"].write_text(json.dumps({"algorithm": "Ed25519", "key_id": KEY_ID, "public_key": raw, "pem": pem}))
    return paths


@pytest.mark.parametrize("key", ["pem", "api json"])
def test_a_signed_replay_verifies_with_the_platform_s_key_in_either_file(lineit, replays, key) -> None:  # type: ignore[no-untyped-def]
    outcome = lineit("verify", replays["signed"], "--key", replays[key])
    assert outcome.status == 0, outcome
    assert outcome.out.startswith(f"ok    {replays['signed']}: signature checked (key {KEY_ID}); verified: ")


def test_an_edited_a_foreign_or_an_unsigned_replay_fails_with_the_key(lineit, replays) -> None:  # type: ignore[no-untyped-def]
    outcome = lineit(
        "verify",
        replays["signed"],
        replays["forged"],
        replays["other key"],
        replays["unsigned"],
        "--key",
        replays["pem"],
    )
    assert outcome.status == 1
    signed, forged, other, unsigned, total = outcome.out.splitlines()
    assert signed.startswith("ok    ")
    assert forged == (
        f"FAIL  {replays['forged']}: the signature of key {KEY_ID} does not match this replay: it was changed "
        "after it was signed"
    )
    assert (
        other.startswith(f"FAIL  {replays['other key']}: signed by key '")
        and f"not by the key given (key {KEY_ID})" in other
    )
    assert unsigned == (
        f"FAIL  {replays['unsigned']}: unsigned: a key was given (key {KEY_ID}), and this replay carries no signature"
    )
    assert total == "3 of 4 replays did not verify"


def test_without_a_key_a_line_says_whether_the_replay_is_signed(lineit, replays) -> None:  # type: ignore[no-untyped-def]
    outcome = lineit("verify", replays["unsigned"], replays["signed"], replays["forged"])
    assert outcome.status == 0  # the engine finds nothing wrong: who played is the producer's word
    unsigned, signed, forged = outcome.out.splitlines()
    assert unsigned.startswith(f"ok    {replays['unsigned']}: unsigned; verified: ")
    not_checked = f"signed by key '{KEY_ID}', signature not checked (no --key); verified: "
    assert signed.startswith(f"ok    {replays['signed']}: {not_checked}")
    assert forged.startswith(f"ok    {replays['forged']}: {not_checked}")


def test_a_malformed_signature_fails_even_without_a_key(lineit, replays, tmp_path) -> None:  # type: ignore[no-untyped-def]
    document = json.loads(replays["signed"].read_text())
    for name, signature in {
        "string": "abc",
        "missing": {"algorithm": "Ed25519"},
        "rsa": {**document["signature"], "algorithm": "RSA"},
    }.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({**document, "signature": signature}))
        outcome = lineit("verify", path)
        assert outcome.status == 1 and outcome.out.startswith(f"FAIL  {path}: "), outcome
        assert "signature" in outcome.out and outcome.out.count("\n") == 1


def test_a_key_repeated_in_a_replay_is_refused(lineit, replays, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Readers disagree on which of two equal keys counts: the file could show one and verify the other."""
    text = replays["signed"].read_text()
    repeated = tmp_path / "repeated.json"
    repeated.write_text(text.replace('"ranks":', '"ranks": [2, 1], "ranks":', 1))
    outcome = lineit("verify", repeated, "--key", replays["pem"])
    assert outcome.status == 2  # not a replay any reader agrees on: bad input
    assert outcome.out == f"FAIL  {repeated}: not a Line-it replay (the key 'ranks' appears twice in one object)\n"


def key_files(folder: Path) -> dict[str, tuple[bytes, str]]:
    """Files that are no public key, and a fragment of the message that refuses each."""
    private = KEY.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    ecdsa = (
        generate_private_key(SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    pem = public_key_pem(KEY.public_key())
    return {
        "empty": (b"", "not a public key"),
        "garbage": (b"\x00\xff garbage \x1b[2J", "not a public key"),
        "private.pem": (private, "this is a private key"),
        "ecdsa.pem": (ecdsa, "not an Ed25519 public key"),
        "truncated.pem": (pem[:60].encode(), "not a readable PEM public key"),
        "mangled.pem": (pem.replace("A", "@").encode(), "not a readable PEM public key"),
        "deep.json": (b'{"pem":' * 5000 + b"1" + b"}" * 5000, "nested too deeply"),
        "not-json.json": (b'{"pem": ', "not JSON"),
        "no-pem.json": (b'{"public_key": "abc"}', "with its 'pem'"),
        "huge.pem": (b"-----BEGIN PUBLIC KEY-----\n" + b"A" * 100_000, "larger than 64 KiB"),
    }


@pytest.mark.parametrize("name", sorted(key_files(Path())))
def test_a_file_that_is_no_public_key_is_one_line_and_status_2(lineit, replays, tmp_path, name) -> None:  # type: ignore[no-untyped-def]
    content, fragment = key_files(tmp_path)[name]
    path = tmp_path / name
    path.write_bytes(content)
    assert_one_line_error(lineit("verify", replays["signed"], "--key", path), 2, f"--key {path}", fragment)


def test_a_missing_or_unreadable_key_file_is_status_2(lineit, replays, tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert_one_line_error(lineit("verify", replays["signed"], "--key", tmp_path / "nope.pem"), 2, "no such file")
    assert_one_line_error(lineit("verify", replays["signed"], "--key", tmp_path), 2, "is a folder, not a key file")


def test_show_reads_a_signed_replay(lineit, replays) -> None:  # type: ignore[no-untyped-def]
    outcome = lineit("show", replays["signed"], "--no-color")
    assert outcome.status == 0 and "Result:" in outcome.out
