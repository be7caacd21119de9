"""The pages keep the API's limits, counted in the same place (lineit_platform/throttles.py and
the match quota's service): sign-in, sign-up, uploads and test matches; and requests too large
or with too many fields get a plain error page, nothing changed."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from tournaments.models import Match

pytestmark = pytest.mark.django_db

GOOD_BOT = b"def act(observation):\n    return observation['legal_actions'][0]\n"


@pytest.fixture
def rate(monkeypatch: pytest.MonkeyPatch) -> Any:
    def set_rate(scope: str, value: str) -> None:
        monkeypatch.setitem(settings.THROTTLE_RATES, scope, value)

    return set_rate


def api_client(user: Any) -> APIClient:
    token, _ = Token.objects.get_or_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def page_upload(client: Client, bot: str, content: bytes, **headers: Any) -> Any:
    return client.post(reverse("bot-upload", args=[bot]), {"code": SimpleUploadedFile("bot.py", content)}, **headers)


def api_upload(client: APIClient, bot_id: int, content: bytes) -> Any:
    handle = io.BytesIO(content)
    handle.name = "bot.py"
    return client.post(f"/api/bots/{bot_id}/versions/", {"file": handle}, format="multipart")


def assert_refused_page(response: Any, text: str) -> str:
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    page = response.content.decode()
    assert text in page
    return page


# --- Sign-in and sign-up ----------------------------------------------------------------------


def test_the_login_page_is_throttled_per_address_whatever_it_forwards(client, alice, rate) -> None:  # type: ignore[no-untyped-def]
    rate("tokens", "3/min")
    alice.set_password("wonderland-42")
    alice.save()
    for n in range(3):
        response = client.post(
            reverse("login"), {"username": "alice", "password": "guess"}, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}"
        )
        assert response.status_code == 200 and "Please enter a correct username" in response.content.decode()
    response = client.post(reverse("login"), {"username": "alice", "password": "wonderland-42"})
    assert_refused_page(response, "Too many sign-in attempts from your address: at most 3 per minute.")
    assert "_auth_user_id" not in client.session  # not signed in
    # The API says the same, in its error shape.
    api = APIClient().post("/api/auth/token/", {"username": "alice", "password": "wonderland-42"})
    assert api.status_code == 429
    assert api.json()["error"]["message"].startswith(
        "Too many sign-in attempts from your address: at most 3 per minute."
    )


def test_wrong_passwords_on_the_login_page_stop_the_guesser_not_the_owner(alice, rate) -> None:  # type: ignore[no-untyped-def]
    rate("login_failures", "2/hour")
    alice.set_password("wonderland-42")
    alice.save()
    guesser = Client(REMOTE_ADDR="203.0.113.5")
    for _ in range(2):
        guesser.post(reverse("login"), {"username": "alice", "password": "guess"})
    response = guesser.post(reverse("login"), {"username": "alice", "password": "wonderland-42"})
    assert_refused_page(response, "Too many failed sign-ins to this account from your address")
    owner = Client(REMOTE_ADDR="203.0.113.99")
    assert owner.post(reverse("login"), {"username": "alice", "password": "wonderland-42"}).status_code == 302


def test_sign_up_is_throttled_per_address(client, rate) -> None:  # type: ignore[no-untyped-def]
    rate("signups", "2/hour")
    for name in ("dora", "emil"):
        password = f"a-long-passphrase-{name}-42"
        data = {"username": name, "password1": password, "password2": password}
        assert Client().post(reverse("signup"), data, HTTP_X_FORWARDED_FOR=f"1.2.3.{len(name)}").status_code == 302
    password = "a-long-passphrase-fred-42"
    response = client.post(reverse("signup"), {"username": "fred", "password1": password, "password2": password})
    assert_refused_page(response, "Too many sign-ups from your address: at most 2 per hour.")
    assert not get_user_model().objects.filter(username="fred").exists()


# --- Uploads and test matches -----------------------------------------------------------------


def test_page_and_api_uploads_share_one_throttle(client, alice, bot_factory, rate) -> None:  # type: ignore[no-untyped-def]
    rate("uploads", "2/hour")
    bot = bot_factory(name="busy", owner=alice)
    client.force_login(alice)
    assert api_upload(api_client(alice), bot.pk, GOOD_BOT + b"# 1\n").status_code == 201
    assert page_upload(client, "busy", GOOD_BOT + b"# 2\n").status_code == 302
    page = assert_refused_page(
        page_upload(client, "busy", GOOD_BOT + b"# 3\n"), "Too many uploads: at most 2 per hour."
    )
    assert "Upload a version of busy" in page  # the upload page again, the refusal as its error
    script = page_upload(client, "busy", GOOD_BOT + b"# 4\n", HTTP_ACCEPT="application/json")
    assert script.status_code == 429 and script.json()["errors"][0].startswith("Too many uploads")
    assert api_upload(api_client(alice), bot.pk, GOOD_BOT + b"# 5\n").status_code == 429
    assert BotVersion.objects.filter(bot=bot).count() == 2


def _match_form(mine: BotVersion, other: BotVersion, games: int = 2) -> dict[str, Any]:
    return {"version": mine.pk, "opponents": [other.pk], "games": games, "ruleset": "standard"}


def test_page_and_api_test_match_requests_share_one_throttle(client, alice, version_factory, rate) -> None:  # type: ignore[no-untyped-def]
    rate("match_requests", "2/hour")
    mine, other = version_factory(bot__owner=alice), version_factory()
    client.force_login(alice)
    assert client.post(reverse("match-request"), _match_form(mine, other)).status_code == 302
    body = {"version": mine.pk, "opponents": [other.pk], "games": 2}
    assert api_client(alice).post("/api/matches/", body, format="json").status_code == 201
    response = client.post(reverse("match-request"), _match_form(mine, other))
    assert_refused_page(response, "Too many test match requests: at most 2 per hour.")
    assert Match.objects.count() == 2


@override_settings(API_MATCH_QUOTA_DAILY_GAMES=10, API_MATCH_QUOTA_PENDING=100)
def test_the_page_keeps_the_daily_games_quota(client, alice, version_factory) -> None:  # type: ignore[no-untyped-def]
    # The issue: the form skipped the quota the API enforced. Both count the same games.
    mine, other = version_factory(bot__owner=alice), version_factory()
    client.force_login(alice)
    body = {"version": mine.pk, "opponents": [other.pk], "games": 6}
    assert api_client(alice).post("/api/matches/", body, format="json").status_code == 201
    response = client.post(reverse("match-request"), _match_form(mine, other, games=5))
    assert response.status_code == 429
    assert "5 more games would make 11 in 24 hours; the limit is 10" in response.content.decode()
    assert client.post(reverse("match-request"), _match_form(mine, other, games=4)).status_code == 302
    assert Match.objects.count() == 2


@override_settings(API_MATCH_MAX_GAMES=8)
def test_the_page_keeps_the_api_s_games_per_match(client, alice, version_factory) -> None:  # type: ignore[no-untyped-def]
    mine, other = version_factory(bot__owner=alice), version_factory()
    client.force_login(alice)
    response = client.post(reverse("match-request"), _match_form(mine, other, games=9))
    assert response.status_code == 200 and "At most 8 games in a test match." in response.content.decode()
    assert not Match.objects.exists()


# --- Requests refused before they are read ----------------------------------------------------


class UnreadableBody(io.RawIOBase):
    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        raise AssertionError("the body of a refused request was read")


def test_an_oversized_upload_gets_a_413_page_before_its_body_is_read(client, alice, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot_factory(name="heavy", owner=alice)
    client.force_login(alice)
    url = reverse("bot-upload", args=["heavy"])
    huge = {"CONTENT_LENGTH": str(200 * 1024 * 1024), "wsgi.input": UnreadableBody()}
    response = client.generic("POST", url, b"", content_type="multipart/form-data; boundary=x", **huge)
    assert response.status_code == 413
    page = response.content.decode()
    assert "Request too large" in page and f"at most {settings.REQUEST_MAX_BYTES}" in page
    assert "Traceback" not in page
    # The progress script reads JSON.
    huge["wsgi.input"] = UnreadableBody()
    script = client.generic(
        "POST", url, b"", content_type="multipart/form-data; boundary=x", HTTP_ACCEPT="application/json", **huge
    )
    assert script.status_code == 413 and "at most" in script.json()["errors"][0]
    assert not BotVersion.objects.exists()


@pytest.mark.parametrize("csrf", [False, True])
def test_too_many_fields_on_a_page_is_a_plain_400(csrf: bool) -> None:
    client = Client(enforce_csrf_checks=csrf)
    client.get(reverse("signup"))  # the CSRF cookie: the middleware then reads the body for its token
    data = "&".join(f"field{n}=x" for n in range(1001))
    response = client.generic("POST", reverse("signup"), data, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    page = response.content.decode()
    assert "Bad request" in page and "more than 1000 fields" in page and "Traceback" not in page
    assert not get_user_model().objects.exists()


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=2000)
def test_form_data_over_django_s_limit_on_a_page_is_a_413() -> None:
    data = "username=" + "a" * 5000
    response = Client().generic("POST", reverse("login"), data, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 413 and "larger than 2000 bytes" in response.content.decode()


def test_page_and_api_bot_creations_share_one_throttle(client, alice, rate) -> None:  # type: ignore[no-untyped-def]
    # Every name a new bot takes for good (names are unique): a bot is no cheaper than an upload.
    rate("bots", "3/day")
    client.force_login(alice)
    assert client.post(reverse("my-bots"), {"name": "first-bot"}).status_code == 302
    api = api_client(alice)
    assert [api.post("/api/bots/", {"name": name}).status_code for name in ("second-bot", "third-bot")] == [201, 201]
    page = assert_refused_page(client.post(reverse("my-bots"), {"name": "fourth-bot"}), "Too many new bots")
    assert "at most 3 per day" in page and "third-bot" in page  # the page as it was, with the error
    refused = api.post("/api/bots/", {"name": "fifth-bot"})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "throttled"
    assert int(refused["Retry-After"]) > 0
    assert sorted(Bot.objects.values_list("name", flat=True)) == ["first-bot", "second-bot", "third-bot"]
    # Another user has a count of their own.
    assert (
        api_client(get_user_model().objects.create(username="bob")).post("/api/bots/", {"name": "bobs"}).status_code
        == 201
    )
