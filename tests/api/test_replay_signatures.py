"""Every face that serves a replay serves it signed by the site (lineit_platform/replay_signing.py):
the API's download, the web's, a live game's; the public key is published at
/api/replays/public-key/ and /.well-known/lineit-replay-key.pem, and `lineit verify --key`, given
either file, accepts a downloaded replay and refuses it edited."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from api_helpers import CRASHING_BOT, play
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from django.urls import reverse

from lineit.engine import REPLAY_FORMAT_VERSION, verify_replay
from lineit.replay_signature import check_signature, read_public_key
from lineit_platform import replay_signing
from tournaments.models import Game, LiveGame, Match, compress_replay, decompress_replay

pytestmark = pytest.mark.django_db


def lineit_verify(*argv: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lineit.cli", "verify", *map(str, argv)], capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def game(alice: Any, version_factory: Any) -> Game:
    """A game of a finished match in which a bot forfeited."""
    crashing = version_factory(bot__owner=alice, code=CRASHING_BOT)
    match = play([crashing, version_factory()], games=1)
    found: Game = Game.objects.get(match=match)
    assert found.forfeits
    return found


def test_a_downloaded_replay_verifies_with_the_published_key_and_not_once_edited(
    game: Game, as_user: Any, tmp_path: Path
) -> None:
    response = as_user(None).get(f"/api/games/{game.pk}/replay/")
    assert response.status_code == 200
    replay = tmp_path / "replay.json"
    replay.write_bytes(response.content)
    pem = tmp_path / "lineit-replay-key.pem"
    pem.write_bytes(as_user(None).get("/.well-known/lineit-replay-key.pem").content)
    answer = tmp_path / "public-key.json"
    answer.write_bytes(as_user(None).get("/api/replays/public-key/").content)
    key_id = json.loads(answer.read_text())["key_id"]

    for key in (pem, answer):
        done = lineit_verify(replay, "--key", key)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.startswith(f"ok    {replay}: signature checked (key {key_id}); verified: ")
        assert "forfeited (exception at decision" in done.stdout  # the claim the signature vouches for

    document = response.json()
    document["meta"]["failures"][0]["kind"] = "timeout"  # why it forfeited: no trace in the moves
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(document))
    done = lineit_verify(edited, "--key", pem)
    assert done.returncode == 1 and done.stderr == ""
    assert (
        done.stdout
        == f"FAIL  {edited}: the signature of key {key_id} does not match this replay: it was changed after it was signed\n"
    )
    without_key = lineit_verify(edited)
    assert (
        without_key.returncode == 0
        and f"signed by key '{key_id}', signature not checked (no --key)" in without_key.stdout
    )


def test_the_public_key_is_published_in_the_api_and_as_a_pem_file(as_user: Any) -> None:
    answer = as_user(None).get("/api/replays/public-key/")
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"algorithm", "key_id", "public_key", "pem"} and body["algorithm"] == "Ed25519"
    pem = as_user(None).get("/.well-known/lineit-replay-key.pem")
    assert pem.status_code == 200 and pem["Content-Type"] == "application/x-pem-file"
    assert pem.content.decode() == body["pem"] and body["pem"].startswith("-----BEGIN PUBLIC KEY-----\n")
    key = read_public_key(pem.content)
    assert key.public_bytes_raw() == base64.b64decode(body["public_key"])
    assert body["key_id"] == replay_signing.public_key_answer()["key_id"]
    schema = as_user(None).get("/api/schema/?format=json").json()
    assert "/api/replays/public-key/" in schema["paths"]


def test_every_face_serves_the_replay_signed(game: Game, as_user: Any, client: Any) -> None:
    key = read_public_key(as_user(None).get("/.well-known/lineit-replay-key.pem").content)
    for url in (f"/api/games/{game.pk}/replay/", reverse("replay-json", args=[game.pk])):
        document = as_user(None).get(url).json()
        assert check_signature(document, key).ok, url
        assert verify_replay(document).ok
    # A live game, while its match still runs.
    Match.objects.filter(pk=game.match_id).update(status=Match.Status.RUNNING)
    match = Match.objects.get(pk=game.match_id)
    LiveGame.objects.create(
        match=match,
        attempt=match.attempts,
        index=0,
        seats=game.seats,
        scores=game.scores,
        ranks=game.ranks,
        replay=game.replay,
    )
    live = client.get(reverse("live-replay-json", args=[match.pk, 0])).json()
    assert check_signature(live, key).ok


def test_stored_replays_of_older_formats_are_served_in_the_current_one_signed(game: Game, as_user: Any) -> None:
    key = read_public_key(as_user(None).get("/.well-known/lineit-replay-key.pem").content)
    current = decompress_replay(game.replay)
    version_2 = {**current, "format_version": 2}
    version_1 = {name: value for name, value in version_2.items() if name not in ("stand_in", "illegal_actions")}
    for stored in (version_2, {**version_1, "format_version": 1}):
        Game.objects.filter(pk=game.pk).update(replay=compress_replay(stored))
        served = as_user(None).get(f"/api/games/{game.pk}/replay/").json()
        assert served["format_version"] == REPLAY_FORMAT_VERSION and check_signature(served, key).ok
        assert verify_replay(served).ok
        assert decompress_replay(Game.objects.get(pk=game.pk).replay) == stored  # nothing is rewritten


def test_production_without_a_key_serves_no_unsigned_replay(game: Game, as_user: Any) -> None:
    with override_settings(REPLAY_SIGNING_KEY="", DEBUG=False):
        with pytest.raises(ImproperlyConfigured, match="REPLAY_SIGNING_KEY is not set"):
            replay_signing.signing_key()
        from lineit_platform.checks import check_replay_signing_key

        assert [error.id for error in check_replay_signing_key()] == ["lineit.E009"]


def test_debug_makes_a_key_once_in_var_dir(tmp_path: Path) -> None:
    with override_settings(REPLAY_SIGNING_KEY="", DEBUG=True, VAR_DIR=tmp_path):
        first = replay_signing.public_key_answer()
        path = tmp_path / replay_signing.DEFAULT_KEY_FILE
        assert path.stat().st_mode & 0o777 == 0o600
        replay_signing._key.cache_clear()  # another process: it reads the same file
        assert replay_signing.public_key_answer() == first
        assert [entry.name for entry in tmp_path.iterdir()] == [replay_signing.DEFAULT_KEY_FILE]


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("not a key", "neither a PEM private key nor base64"),
        ("AAAA", "base64 of 3 bytes"),
        ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", "not a readable unencrypted PEM private key"),
    ],
)
def test_a_key_that_cannot_be_read_stops_every_command_in_one_line(value: str, fragment: str) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "REPLAY_SIGNING_KEY": value},
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"manage.py: bad configuration: REPLAY_SIGNING_KEY is {fragment}"), line
