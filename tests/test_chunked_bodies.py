"""A body sent in chunks (``Transfer-Encoding: chunked``, no ``Content-Length``) to a real gunicorn
(tests/web_process.py): Django reads only as many bytes as Content-Length says, so gunicorn handed
it a body that read as empty, and an upload was told "No file was submitted". It is refused with
411 in the API's error shape; the same upload with its length goes through."""

from __future__ import annotations

import http.client
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from web_process import WebProcess

from bots.models import BotVersion

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BOT = b"def act(observation):\n    return observation['legal_actions'][0]\n"


def multipart(content: bytes) -> tuple[str, bytes]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="bot.py"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return f"multipart/form-data; boundary={boundary}", body


def post(web: WebProcess, path: str, token: str, body: bytes, content_type: str, *, chunked: bool) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
    try:
        connection.putrequest("POST", path)
        connection.putheader("Authorization", f"Token {token}")
        connection.putheader("Content-Type", content_type)
        connection.putheader(
            "Transfer-Encoding" if chunked else "Content-Length", "chunked" if chunked else str(len(body))
        )
        connection.endheaders()
        if chunked:
            for start in range(0, len(body), 40):
                chunk = body[start : start + 40]
                connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            connection.send(b"0\r\n\r\n")
        else:
            connection.send(body)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_a_chunked_upload_is_refused_with_411_and_the_same_upload_with_its_length_goes_through(
    tmp_path: Path, alice: Any, bot_factory: Any
) -> None:
    bot = bot_factory(owner=alice)
    token = Token.objects.create(user=alice).key
    web = WebProcess(tmp_path / "web.log")
    try:
        content_type, body = multipart(BOT)
        status, answer = post(web, f"/api/bots/{bot.pk}/versions/", token, body, content_type, chunked=True)
        assert status == 411 and answer["error"]["code"] == "length_required", answer
        assert not BotVersion.objects.exists()
        status, answer = post(web, f"/api/bots/{bot.pk}/versions/", token, body, content_type, chunked=False)
        assert status == 201 and answer["status"] == "validating", answer
    finally:
        web.stop()
