"""Requests the API refuses before it reads them: a body over REQUEST_MAX_BYTES (413 without
reading a byte of it), more fields than DATA_UPLOAD_MAX_NUMBER_FIELDS (400), more form data than
DATA_UPLOAD_MAX_MEMORY_SIZE (413); every answer in the one error shape, on every operation."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from api_helpers import assert_error, client_for
from django.conf import settings
from django.test import Client, override_settings
from drf_spectacular.generators import SchemaGenerator

from bots.models import Bot, BotVersion
from tournaments.models import Match, Tournament

pytestmark = pytest.mark.django_db

HUGE = 200 * 1024 * 1024
FORM = "application/x-www-form-urlencoded"


class UnreadableBody(io.RawIOBase):
    """A request body that fails the test if anything reads it."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        raise AssertionError("the body of a refused request was read")


def declared(
    client: Any, method: str, url: str, length: int, content_type: str = "multipart/form-data; boundary=x"
) -> Any:
    """A request that says it carries ``length`` bytes, with a body nobody may read."""
    return client.generic(
        method, url, b"", content_type=content_type, CONTENT_LENGTH=str(length), **{"wsgi.input": UnreadableBody()}
    )


def many_fields(count: int = 1001) -> str:
    return "&".join(f"field{n}=x" for n in range(count))


def test_a_200_mb_upload_is_refused_before_its_body_is_read(alice, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    response = declared(client_for(alice), "POST", f"/api/bots/{bot.pk}/versions/", HUGE)
    error = assert_error(response, 413, "request_too_large")
    assert f"The request is {HUGE} bytes" in error["message"]
    assert str(settings.REQUEST_MAX_BYTES) in error["message"]
    assert not BotVersion.objects.exists()


@pytest.mark.parametrize(
    "url", ["/api/bots/", "/api/matches/", "/api/tournaments/", "/api/auth/token/", "/api/nowhere/"]
)
def test_every_address_refuses_an_oversized_body_anonymous_or_not(staff, url) -> None:  # type: ignore[no-untyped-def]
    for client in (client_for(staff), client_for(None)):
        assert_error(declared(client, "POST", url, settings.REQUEST_MAX_BYTES + 1, FORM), 413, "request_too_large")


def test_a_real_oversized_upload_is_refused_and_one_under_the_request_limit_is_explained(alice, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    client = client_for(alice)
    big = io.BytesIO(b"#" * (settings.REQUEST_MAX_BYTES + 1))
    big.name = "bot.py"
    response = client.post(f"/api/bots/{bot.pk}/versions/", {"file": big}, format="multipart")
    assert_error(response, 413, "request_too_large")
    # Over the bot file limit but within the request limit: the upload check says which limit.
    over = io.BytesIO(b"#" * (settings.BOT_UPLOAD_MAX_BYTES + 1))
    over.name = "bot.py"
    error = assert_error(client.post(f"/api/bots/{bot.pk}/versions/", {"file": over}, format="multipart"), 400)
    assert f"the limit is {settings.BOT_UPLOAD_MAX_BYTES}" in error["message"]
    assert not BotVersion.objects.exists()


def test_the_request_limit_leaves_room_for_the_largest_bot_file() -> None:
    assert settings.REQUEST_MAX_BYTES > settings.BOT_UPLOAD_MAX_BYTES
    # Django reads at most as much, and keeps an upload in memory: never a temporary file.
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE <= settings.REQUEST_MAX_BYTES
    assert settings.FILE_UPLOAD_MAX_MEMORY_SIZE >= settings.REQUEST_MAX_BYTES


@pytest.mark.parametrize(
    ("url", "encoding"),
    [
        ("/api/bots/", "form"),
        ("/api/bots/", "multipart"),
        ("/api/tournaments/", "form"),
        ("/api/tournaments/", "multipart"),
        ("/api/matches/", "form"),
        ("/api/auth/token/", "form"),
        ("/api/bots/{bot}/versions/", "multipart"),
    ],
)
def test_too_many_fields_is_a_400_not_a_server_error(staff, bot_factory, url, encoding) -> None:  # type: ignore[no-untyped-def]
    url = url.format(bot=bot_factory(owner=staff).pk)
    client = client_for(staff)
    if encoding == "form":
        response = client.generic("POST", url, many_fields(), content_type=FORM)
    else:
        response = client.post(url, {f"field{n}": "x" for n in range(1001)}, format="multipart")
    error = assert_error(response, 400, "too_many_fields")
    assert f"more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields" in error["message"]
    assert Bot.objects.count() == 1 and not Tournament.objects.exists() and not Match.objects.exists()


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=2000)
def test_form_data_over_django_s_limit_is_a_413() -> None:
    response = client_for(None).generic("POST", "/api/auth/token/", "username=" + "a" * 5000, content_type=FORM)
    assert_error(response, 413, "request_too_large")


def _operations() -> list[tuple[str, str]]:
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    return [
        (method.upper(), re.sub(r"\{[^}]+\}", "1", path))
        for path, operations in paths.items()
        for method in operations
        if method in ("get", "post", "put", "patch", "delete")
    ]


def test_no_operation_answers_too_many_fields_with_a_server_error(staff, version_factory) -> None:  # type: ignore[no-untyped-def]
    # Every operation of the schema, as staff (allowed everywhere), with 1,001 fields in its query
    # string (reads) or its body (writes): never a 500, always the one error shape.
    version_factory(bot__owner=staff)
    refused = set()
    for method, path in _operations():
        client = client_for(staff)  # afresh: one of the operations revokes the token
        if method == "GET":
            response = client.get(f"{path}?{many_fields()}")
        else:
            response = client.generic(method, path, many_fields(), content_type=FORM)
        assert response.status_code < 500, (method, path, response.content)
        if response.status_code >= 400:
            assert_error(response, response.status_code)
        if response.status_code == 400 and response.json()["error"]["code"] == "too_many_fields":
            refused.add((method, path))
    # The writes that read a body, and the lists that read their filters, all said why.
    for expected in [
        ("POST", "/api/bots/"),
        ("POST", "/api/tournaments/"),
        ("GET", "/api/matches/"),
        ("GET", "/api/leaderboard/"),
    ]:
        assert expected in refused


@pytest.mark.parametrize("url", ["/api/bots/{bot}/versions/", "/api/bots/", "/api/auth/token/"])
def test_a_body_sent_in_chunks_without_a_length_is_refused_not_read_as_empty(alice, bot_factory, url) -> None:  # type: ignore[no-untyped-def]
    # Django reads only Content-Length bytes: a chunked upload was read as no file at all.
    url = url.format(bot=bot_factory(owner=alice).pk)
    response = client_for(alice).generic(
        "POST", url, b"", content_type="multipart/form-data; boundary=x", HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": UnreadableBody()},
    )  # fmt: skip
    error = assert_error(response, 411, "length_required")
    assert "no Content-Length" in error["message"]
    assert Bot.objects.count() == 1 and not BotVersion.objects.exists()


def test_a_page_refuses_a_chunked_body_with_a_plain_page(alice) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(alice)
    response = client.generic(
        "POST",
        "/me/bots/",
        b"",
        content_type=FORM,
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": UnreadableBody()},
    )
    assert response.status_code == 411 and "<h1>Length required</h1>" in response.content.decode()
    assert not Bot.objects.exists()
