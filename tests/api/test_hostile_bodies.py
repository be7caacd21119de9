"""Bodies built to break a parser get a 400, never a 500: every operation of the API that takes a
body, taken from the OpenAPI schema, is sent JSON nested thousands of levels deep (and a little
below what Python's own parser survives), as an anonymous client, a signed-in user and staff."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from api_helpers import assert_error, client_for
from django.core.cache import caches
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

pytestmark = pytest.mark.django_db

WRITES = ("post", "put", "patch", "delete")
DEEP = {
    "2 KB of brackets": "[" * 1024 + "]" * 1024,
    "100,000 levels": "[" * 100_000 + "]" * 100_000,
    "objects 990 deep": '{"a":' * 990 + "1" + "}" * 990,
    "a field 900 deep": '{"name": ' + "[" * 900 + "]" * 900 + "}",
}


def operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [(method, path) for path, item in schema["paths"].items() for method in item if method in WRITES]


@pytest.fixture
def ids(alice: Any, staff: Any, version_factory: Any) -> dict[str, int]:
    """An object of each kind a path can name, alice's where it has an owner, so that each
    operation reaches the point where it reads its body."""
    version = version_factory(bot__owner=alice)
    others = [version_factory() for _ in range(3)]
    admin = client_for(staff)
    starts = (timezone.now() + timedelta(hours=2)).isoformat()
    tournament = admin.post(
        "/api/tournaments/",
        {
            "name": "cup",
            "format": "single",
            "starts_at": starts,
            "games_per_pairing": 2,
            "versions": [v.pk for v in [version, *others]],
        },
        format="json",
    )
    recurring = admin.post(
        "/api/recurring-tournaments/",
        {
            "name": "nightly",
            "format": "round-robin",
            "games_per_pairing": 2,
            "every": "1 00:00:00",
            "next_run_at": starts,
        },
        format="json",
    )
    assert tournament.status_code == recurring.status_code == 201
    return {
        "bots": version.bot_id,
        "versions": version.pk,
        "tournaments": tournament.json()["id"],
        "recurring-tournaments": recurring.json()["id"],
    }


def test_the_sweep_covers_the_anonymous_token_endpoint_and_every_write() -> None:
    found = operations()
    assert ("post", "/api/auth/token/") in found and len(found) >= 15


@pytest.mark.parametrize("who", ["anonymous", "alice", "staff"])
def test_deeply_nested_json_is_a_400_on_every_operation(who: str, ids: dict[str, int], alice: Any, staff: Any) -> None:
    client = client_for({"anonymous": None, "alice": alice, "staff": staff}[who])
    for method, path in operations():
        url = path.replace("{id}", str(ids.get(path.split("/")[2], 1)))
        for name, body in DEEP.items():
            caches["api"].clear()  # a throttle's 429 would hide what the parser does
            response = getattr(client, method)(url, body, content_type="application/json")
            assert response.status_code < 500, (who, method, url, name, response.content[:300])
            if response.status_code == 400:
                error = assert_error(response, 400)
                assert "nested" in error["message"] or "JSON" in error["message"], (method, url, error)


def test_the_anonymous_token_endpoint_says_what_is_wrong(anonymous: Any) -> None:
    response = anonymous.post("/api/auth/token/", DEEP["2 KB of brackets"], content_type="application/json")
    error = assert_error(response, 400, "parse_error")
    assert "nested more than" in error["message"]


# Forms and multipart bodies that break their parsers, and charsets that do not exist.
BROKEN = {
    "multipart without a boundary": ("multipart/form-data", b"--x\r\n"),
    "an empty boundary": ("multipart/form-data; boundary=", b"--\r\n"),
    "a boundary of control bytes": ("multipart/form-data; boundary=\x00\x01", b"--x\r\n"),
    "a boundary too long": ("multipart/form-data; boundary=" + "x" * 300, b"--x\r\n"),
    "a part without a name": (
        "multipart/form-data; boundary=x",
        b"--x\r\nContent-Disposition: form-data\r\n\r\na\r\n--x--\r\n",
    ),
    "a file without its end": (
        "multipart/form-data; boundary=x",
        b'--x\r\nContent-Disposition: form-data; name="code"; filename="bot.py"\r\n\r\nabc',
    ),
    "headers not text": ("multipart/form-data; boundary=x", b"--x\r\n\xff\xfe: \xff\r\n\r\nabc\r\n--x--\r\n"),
    "a form not UTF-8": ("application/x-www-form-urlencoded", b"username=%ff%fe&password=\xff"),
    "a form's unknown charset": ("application/x-www-form-urlencoded; charset=no-such-charset", b"username=a"),
    "JSON's unknown charset": ("application/json; charset=no-such-charset", b"{}"),
    "JSON in UTF-16": ("application/json; charset=utf-16", b"\xff\xfe{\x00}\x00"),
}


@pytest.mark.parametrize("where", ["login page", "upload page", "token", "upload", "new bot"])
def test_broken_forms_and_multipart_bodies_are_never_a_server_error(
    where: str, alice: Any, version_factory: Any
) -> None:
    from django.test import Client
    from django.urls import reverse

    bot = version_factory(bot__owner=alice).bot
    client = Client(enforce_csrf_checks=True)
    client.get(reverse("login"))  # a CSRF cookie: the middleware then reads the body for the token
    if where in ("upload page", "upload", "new bot"):
        client.force_login(alice)
    url = {
        "login page": reverse("login"),
        "upload page": reverse("bot-upload", args=[bot.name]),
        "token": "/api/auth/token/",
        "upload": f"/api/bots/{bot.pk}/versions/",
        "new bot": "/api/bots/",
    }[where]
    for name, (content_type, body) in BROKEN.items():
        response = client.generic("POST", url, body, content_type=content_type)
        assert response.status_code < 500, (name, response.content[:300])
