"""Sign up, log in, my bots, uploads, test matches and the API token, through the Django test client."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse
from rest_framework.authtoken.models import Token

from bots.models import Bot, BotVersion
from lineit.stats.intervals import wilson_interval
from tournaments.models import Match

pytestmark = pytest.mark.django_db

GOOD_BOT = b"def act(observation):\n    return observation['legal_actions'][0]\n"


def upload(client, name: str, content: bytes = GOOD_BOT, filename: str = "bot.py", **headers):  # type: ignore[no-untyped-def]
    return client.post(reverse("bot-upload", args=[name]), {"code": SimpleUploadedFile(filename, content)}, **headers)


def test_a_visitor_signs_up_and_is_logged_in(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post(
        reverse("signup"),
        {"username": "dora", "password1": "a-long-passphrase-42", "password2": "a-long-passphrase-42"},
    )
    assert response.status_code == 302 and response.url == reverse("my-bots")
    assert get_user_model().objects.filter(username="dora").exists()
    assert client.get(reverse("my-bots")).status_code == 200


def test_sign_up_refuses_a_weak_password_and_creates_nobody(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post(reverse("signup"), {"username": "dora", "password1": "123", "password2": "123"})
    assert response.status_code == 200 and "too short" in response.content.decode()
    assert not get_user_model().objects.filter(username="dora").exists()


def test_log_in_and_out(client, alice) -> None:  # type: ignore[no-untyped-def]
    alice.set_password("wonderland-42")
    alice.save()
    assert client.get(reverse("login")).status_code == 200
    response = client.post(reverse("login"), {"username": "alice", "password": "wonderland-42"})
    assert response.status_code == 302 and response.url == reverse("my-bots")
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("my-bots")).status_code == 302


@pytest.mark.parametrize("name", ["my-bots", "match-request", "api-token"])
def test_account_pages_need_a_login(client, name) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse(name))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_creating_a_bot_then_uploading_a_version(client, alice, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    client.force_login(alice)
    response = client.post(reverse("my-bots"), {"name": "dora-bot", "description": "first try"})
    assert response.status_code == 302 and response.url == reverse("bot-upload", args=["dora-bot"])
    bot = Bot.objects.get(name="dora-bot")
    assert bot.owner == alice
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = upload(client, "dora-bot")
    version = BotVersion.objects.get(bot=bot)
    assert response.status_code == 302 and response.url == reverse("version-detail", args=["dora-bot", 1])
    assert version.status == "validating" and len(callbacks) == 1  # its validation is queued
    page = client.get(response.url).content.decode()
    assert "validating" in page and 'http-equiv="refresh"' not in page and "web/live.js" in page
    assert "dora-bot" in client.get(reverse("my-bots")).content.decode()


def test_a_duplicate_bot_name_is_refused(client, alice, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot_factory(name="taken")
    client.force_login(alice)
    response = client.post(reverse("my-bots"), {"name": "Taken"})
    assert response.status_code == 200 and "already exists" in response.content.decode()
    assert Bot.objects.filter(owner=alice).count() == 0


def test_the_upload_answers_json_for_the_progress_script(client, alice, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot_factory(name="scripted", owner=alice)
    client.force_login(alice)
    response = upload(client, "scripted", HTTP_ACCEPT="application/json")
    assert response.status_code == 201
    data = response.json()
    assert data["label"] == "scripted@v1"
    assert client.get(data["status_url"]).json()["status"] == "validating"
    refused = upload(client, "scripted", b"def act(o:\n", HTTP_ACCEPT="application/json")
    assert refused.status_code == 400 and "line 1: syntax error" in " ".join(refused.json()["errors"])
    assert BotVersion.objects.filter(bot__name="scripted").count() == 1


def test_an_upload_refused_at_the_door_says_why_and_stores_nothing(client, alice, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot_factory(name="picky", owner=alice)
    client.force_login(alice)
    response = upload(client, "picky", b"hello", filename="bot.exe")
    assert response.status_code == 200
    assert ".py file or a .zip package" in response.content.decode()
    upload(client, "picky")
    again = upload(client, "picky")
    assert "already picky@v1" in again.content.decode()
    assert BotVersion.objects.filter(bot__name="picky").count() == 1


def test_only_the_owner_may_upload(client, alice, bob, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot_factory(name="alices", owner=alice)
    client.force_login(bob)
    assert client.get(reverse("bot-upload", args=["alices"])).status_code == 403
    assert upload(client, "alices").status_code == 403
    assert not BotVersion.objects.exists()


def test_requesting_an_unranked_match(client, alice, version_factory, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    mine = version_factory(bot__owner=alice)
    opponents = [version_factory(), version_factory()]
    client.force_login(alice)
    page = client.get(reverse("match-request")).content.decode()
    assert mine.label in page and opponents[0].label in page
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(
            reverse("match-request"),
            {
                "version": mine.pk,
                "opponents": [v.pk for v in opponents],
                "games": 3,
                "ruleset": "bga",
                "duplicate_deals": "on",
            },
        )
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == reverse("match-detail", args=[match.pk])
    assert (match.ranked, match.ruleset, match.games, match.num_players, match.requested_by) == (
        False,
        "bga",
        3,
        3,
        alice,
    )
    assert [e.version for e in match.entrants.order_by("index")] == [mine, *opponents]
    assert len(callbacks) == 1


def test_a_match_needs_your_own_version_and_one_to_four_opponents(client, alice, version_factory) -> None:  # type: ignore[no-untyped-def]
    someone_elses = version_factory()
    mine = version_factory(bot__owner=alice)
    client.force_login(alice)
    base = {"games": 2, "ruleset": "standard"}
    response = client.post(reverse("match-request"), base | {"version": someone_elses.pk, "opponents": [mine.pk]})
    assert "Select a valid choice" in response.content.decode()
    many = [version_factory().pk for _ in range(5)]
    response = client.post(reverse("match-request"), base | {"version": mine.pk, "opponents": many})
    assert "Choose 1 to 4 opponents" in response.content.decode()
    assert not Match.objects.exists()


@override_settings(API_MATCH_QUOTA_PENDING=1)
def test_test_matches_have_a_quota(client, alice, version_factory) -> None:  # type: ignore[no-untyped-def]
    mine, other = version_factory(bot__owner=alice), version_factory()
    client.force_login(alice)
    data = {"version": mine.pk, "opponents": [other.pk], "games": 2, "ruleset": "standard"}
    assert client.post(reverse("match-request"), data).status_code == 302
    response = client.post(reverse("match-request"), data)
    assert response.status_code == 429
    assert "already have 1 requested matches queued or running; the limit is 1" in response.content.decode()
    assert Match.objects.count() == 1


def test_the_api_token_is_shown_and_rotated(client, alice) -> None:  # type: ignore[no-untyped-def]
    client.force_login(alice)
    first = client.get(reverse("api-token"))
    key = Token.objects.get(user=alice).key
    assert key in first.content.decode()
    assert client.post(reverse("api-token")).status_code == 302
    rotated = Token.objects.get(user=alice).key
    assert rotated != key and rotated in client.get(reverse("api-token")).content.decode()


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson_interval(10, 10)
    assert high == pytest.approx(1.0) and round(low, 4) == 0.7225
    assert wilson_interval(0, 0) == (0.0, 1.0)
