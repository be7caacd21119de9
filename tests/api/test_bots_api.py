"""Bots and versions through the API: who may create, upload, read the validation report, download
source; bad input is a clear 4xx that changes nothing."""

from __future__ import annotations

import gzip
import io
import zipfile

import pytest
from api_helpers import assert_error
from django.conf import settings
from django.test import override_settings

from bots.code_cache import version_code
from bots.models import Bot, BotVersion

pytestmark = pytest.mark.django_db

GOOD_BOT = b"def act(observation):\n    return observation['legal_actions'][0]\n"


def upload(client, bot_id, content=GOOD_BOT, name="bot.py"):  # type: ignore[no-untyped-def]
    return client.post(f"/api/bots/{bot_id}/versions/", {"file": _named(content, name)}, format="multipart")


def _named(content: bytes, name: str) -> io.BytesIO:
    handle = io.BytesIO(content)
    handle.name = name
    return handle


# --- Creating bots ----------------------------------------------------------------------------


def test_a_signed_in_user_creates_a_bot_and_owns_it(alice, as_user) -> None:  # type: ignore[no-untyped-def]
    response = as_user(alice).post("/api/bots/", {"name": "alices-bot", "description": "greedy"})
    assert response.status_code == 201, response.content
    assert response.json()["owner"] == "alice" and response.json()["version_count"] == 0
    assert Bot.objects.get(name="alices-bot").owner == alice


def test_anonymous_cannot_create_a_bot(anonymous) -> None:  # type: ignore[no-untyped-def]
    assert_error(anonymous.post("/api/bots/", {"name": "sneaky"}), 401, "not_authenticated")
    assert not Bot.objects.exists()


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "name"),
        ({"name": "x"}, "name"),
        ({"name": "../etc"}, "name"),
        ({"name": "a" * 41}, "name"),
        ({"name": "fine", "description": "d" * 2001}, "description"),
    ],
)
def test_bad_bot_input_is_refused_field_by_field(alice, as_user, payload, field) -> None:  # type: ignore[no-untyped-def]
    error = assert_error(as_user(alice).post("/api/bots/", payload), 400, "invalid")
    assert field in error["fields"]
    assert not Bot.objects.exists()


def test_a_taken_name_is_refused(alice, bob, as_user, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot_factory(owner=alice, name="taken")
    error = assert_error(as_user(bob).post("/api/bots/", {"name": "taken"}), 400, "invalid")
    assert "name" in error["message"]
    assert Bot.objects.count() == 1


def test_malformed_json_is_a_parse_error(alice, as_user) -> None:  # type: ignore[no-untyped-def]
    response = as_user(alice).post("/api/bots/", "{not json", content_type="application/json")
    assert_error(response, 400, "parse_error")


# --- Browsing ---------------------------------------------------------------------------------


def test_anyone_lists_and_filters_bots(alice, bob, anonymous, bot_factory, version_factory) -> None:  # type: ignore[no-untyped-def]
    mine = bot_factory(owner=alice, name="alpha")
    version_factory(bot=mine, number=1)
    newest = version_factory(bot=mine, number=2)
    bot_factory(owner=bob, name="beta")
    body = anonymous.get("/api/bots/").json()
    assert body["count"] == 2 and [bot["name"] for bot in body["results"]] == ["alpha", "beta"]
    alpha = body["results"][0]
    assert alpha["version_count"] == 2 and alpha["latest_version"] == newest.pk
    assert [b["name"] for b in anonymous.get("/api/bots/?owner=bob").json()["results"]] == ["beta"]
    assert anonymous.get(f"/api/bots/{mine.pk}/").json()["name"] == "alpha"
    assert_error(anonymous.get("/api/bots/999999/"), 404, "not_found")


# --- Uploading versions -----------------------------------------------------------------------


def test_the_owner_uploads_a_version_that_starts_validating(  # type: ignore[no-untyped-def]
    alice, as_user, bot_factory, django_capture_on_commit_callbacks
) -> None:
    bot = bot_factory(owner=alice)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = upload(as_user(alice), bot.pk)
    assert response.status_code == 201, response.content
    version = response.json()
    assert (version["number"], version["status"], version["label"]) == (1, "validating", f"{bot.name}@v1")
    assert version["validation"]["status"] == "validating" and version["validation"]["stderr"] == ""
    assert len(callbacks) == 1  # the validation game is queued after commit


def test_staff_may_upload_to_anyones_bot(alice, staff, as_user, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    assert upload(as_user(staff), bot.pk).status_code == 201
    assert BotVersion.objects.get(bot=bot).uploaded_by == staff


def test_a_rival_or_anonymous_cannot_upload(alice, bob, anonymous, as_user, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    assert_error(upload(as_user(bob), bot.pk), 403, "permission_denied")
    assert_error(upload(anonymous, bot.pk), 401)
    assert not BotVersion.objects.exists()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        (b"def act(o):\n    return (\n", "bot.py", "syntax error"),
        (b"", "bot.py", "empty"),
        (GOOD_BOT, "bot.exe", ".py file or a .zip"),
        (_zip({"../bot.py": GOOD_BOT}), "bot.zip", "outside the archive"),
        (_zip({"helper.py": GOOD_BOT}), "bot.zip", "no bot.py"),
        (b"PK\x03\x04 broken", "bot.zip", "not a readable zip"),
    ],
)
def test_bad_uploads_are_rejected_at_the_door(alice, as_user, bot_factory, content, name, message) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    error = assert_error(upload(as_user(alice), bot.pk, content, name), 400)
    assert message in error["message"]
    assert not BotVersion.objects.exists()


def test_an_upload_without_a_file_names_the_field(alice, as_user, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    error = assert_error(as_user(alice).post(f"/api/bots/{bot.pk}/versions/", {}, format="multipart"), 400, "invalid")
    assert "file" in error["fields"]


@override_settings(BOT_UPLOAD_MAX_BYTES=2048)
def test_an_oversized_upload_is_refused_before_it_is_read(alice, as_user, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    big = GOOD_BOT + b"#" * 4096
    error = assert_error(upload(as_user(alice), bot.pk, big), 400, "upload_rejected")
    assert "limit is 2048" in error["message"]
    assert not BotVersion.objects.exists()


def test_the_same_file_twice_is_a_conflict(alice, as_user, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    client = as_user(alice)
    assert upload(client, bot.pk).status_code == 201
    error = assert_error(upload(client, bot.pk), 409, "conflict")
    assert "already" in error["message"]
    assert BotVersion.objects.count() == 1


def test_uploads_are_throttled(alice, as_user, bot_factory, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(settings.THROTTLE_RATES, "uploads", "2/hour")
    bot = bot_factory(owner=alice)
    client = as_user(alice)
    for n in range(2):
        assert upload(client, bot.pk, GOOD_BOT + f"# {n}\n".encode()).status_code == 201
    response = upload(client, bot.pk, GOOD_BOT + b"# 3\n")
    assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0
    assert BotVersion.objects.count() == 2
    # Reading is never throttled, and bot creation is not an upload.
    assert client.get(f"/api/bots/{bot.pk}/versions/").status_code == 200
    assert client.post("/api/bots/", {"name": "another"}).status_code == 201


# --- Validation reports and source ------------------------------------------------------------


def test_the_validation_report_shows_its_message_and_stderr_to_the_owner_only(  # type: ignore[no-untyped-def]
    alice, bob, staff, anonymous, as_user, version_factory
) -> None:
    version = version_factory(
        bot__owner=alice,
        status="rejected",
        rejection_reason="validation game failed: exception in game 2, decision 7: boom",
        rejection_stderr="Traceback: alice's secret",
    )
    url = f"/api/versions/{version.pk}/"
    for viewer, sees in [(alice, True), (staff, True), (bob, False)]:
        report = as_user(viewer).get(url).json()["validation"]
        assert report["status"] == "rejected"
        assert report["reason"] == "validation game failed: exception in game 2, decision 7"  # the kind and where
        assert report["message"] == ("boom" if sees else None)
        assert report["stderr"] == ("Traceback: alice's secret" if sees else None)
    anonymous_view = anonymous.get(url).json()
    assert anonymous_view["validation"]["message"] is None and anonymous_view["validation"]["stderr"] is None
    assert anonymous_view["source_url"] is None


def test_only_the_owner_and_staff_download_the_source(  # type: ignore[no-untyped-def]
    alice, bob, staff, anonymous, as_user, version_factory
) -> None:
    version = version_factory(bot__owner=alice)
    url = f"/api/versions/{version.pk}/source/"
    for viewer in (alice, staff):
        response = as_user(viewer).get(url)
        assert response.status_code == 200
        assert b"".join(response.streaming_content) == version_code(version)
        assert f"{version.bot.name}-v{version.number}.py" in response["Content-Disposition"]
    assert_error(as_user(bob).get(url), 403, "permission_denied")
    assert_error(anonymous.get(url), 401, "not_authenticated")
    assert as_user(alice).get(f"/api/versions/{version.pk}/").json()["source_url"].endswith(url)


def test_versions_are_listed_and_filtered(alice, anonymous, version_factory, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    active = version_factory(bot=bot, number=1)
    version_factory(bot=bot, number=2, status="rejected")
    version_factory()
    assert anonymous.get("/api/versions/").json()["count"] == 3
    body = anonymous.get(f"/api/versions/?bot={bot.pk}&status=active").json()
    assert [v["id"] for v in body["results"]] == [active.pk]
    assert anonymous.get(f"/api/bots/{bot.pk}/versions/").json()["count"] == 2
    assert_error(anonymous.get("/api/versions/?status=sleeping"), 400, "invalid")
    assert_error(anonymous.get("/api/versions/?bot=99999999999999999999999"), 400, "invalid")


# --- Head to head -----------------------------------------------------------------------------


def test_anyone_reads_a_bots_head_to_head_as_the_bot_page_shows_it(  # type: ignore[no-untyped-def]
    alice, bob, anonymous, version_factory, play_match, client
) -> None:
    alices = version_factory(bot__owner=alice)
    bobs, carols = version_factory(bot__owner=bob), version_factory()
    play_match([alices, bobs], games=4, ranked=True)
    play_match([alices, carols], games=2)
    play_match([bobs, carols], games=2)  # not alice's: not in her record

    response = anonymous.get(f"/api/bots/{alices.bot_id}/head-to-head/")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["count"] == 2 and [row["opponent_name"] for row in body["results"]] == [bobs.bot.name, carols.bot.name]
    page = client.get(f"/bots/{alices.bot.name}/").context["head_to_head"]
    for row, record in zip(body["results"], page, strict=True):
        assert row["opponent"] == record.opponent.pk
        assert (row["games"], row["wins"], row["win_rate"]) == (record.games, record.wins, record.win_rate)
        assert row["mean_score_difference"] == pytest.approx(record.mean_score_difference)
        assert row["win_interval"] == pytest.approx(list(record.interval))
    assert body["results"][0]["games"] == 4


def test_head_to_head_of_a_bot_without_games_is_empty_and_of_no_bot_a_404(anonymous, version_factory) -> None:  # type: ignore[no-untyped-def]
    lonely = version_factory()
    assert anonymous.get(f"/api/bots/{lonely.bot_id}/head-to-head/").json()["results"] == []
    assert_error(anonymous.get("/api/bots/999999/head-to-head/"), 404, "not_found")


def test_an_archive_inside_the_zip_is_refused_and_stores_nothing(alice, as_user, bot_factory) -> None:  # type: ignore[no-untyped-def]
    # The one check at the door (bots/uploads.py), as on the upload page.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", GOOD_BOT)
        archive.writestr("data.bin", gzip.compress(b"\0" * 1_000_000))
    bot = bot_factory(owner=alice)
    error = assert_error(upload(as_user(alice), bot.pk, buffer.getvalue(), "bot.zip"), 400, "upload_rejected")
    assert "'data.bin' is a gzip archive" in error["message"]
    assert not BotVersion.objects.exists()


def test_a_source_this_host_cannot_read_is_served_from_the_database_copy(
    alice, as_user, version_factory, settings
) -> None:  # type: ignore[no-untyped-def]
    """(A source with no intact copy at all answers 503: tests/bots/test_bot_code_integrity.py.)"""
    from pathlib import Path

    version = version_factory(bot__owner=alice)
    stored = Path(settings.MEDIA_ROOT) / version.path
    content = stored.read_bytes()  # shared by every version of the same code: put back after
    stored.unlink()
    stored.mkdir()  # there, but not a file the storage can read
    try:
        response = as_user(alice).get(f"/api/versions/{version.pk}/source/")
    finally:
        stored.rmdir()
        stored.write_bytes(content)
    assert response.status_code == 200 and b"".join(response.streaming_content) == content
