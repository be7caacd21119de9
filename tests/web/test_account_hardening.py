"""Accounts against an attacker: look-alike names (`аlice` and `alicе` with Cyrillic letters beside
`alice`; `rand0m` beside the built-in `random`) are refused on every face, and by the database
when two requests race; a password reset is rate-limited per client, per address and per account,
and once it succeeds the old sessions and the API token no longer work; sign-up asks for an
optional email address and says what it is for."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import caches
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from simultaneous import at_once

from bots.models import Bot
from bots.services import bot_create
from lineit_platform.errors import ApplicationError

User = get_user_model()
PASSWORD = "a-long-passphrase-42"
LOOK_ALIKES = ["\u0430lice", "alic\u0435", "aIice", "a1ice", "ALICE", "Alice"]  # Cyrillic а, е; capital i; one


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    caches["api"].clear()
    yield
    caches["api"].clear()


def sign_up(client: Client, username: str, **extra: str) -> Any:
    return client.post(reverse("signup"), {"username": username, "password1": PASSWORD, "password2": PASSWORD, **extra})


# --- Look-alike names -----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("username", LOOK_ALIKES)
def test_a_username_that_looks_like_another_is_refused_at_sign_up(client: Client, alice: Any, username: str) -> None:
    response = sign_up(client, username)
    assert response.status_code == 200
    said = (
        "already exists" if username.lower() == "alice" else "looks like the name of another user"
    )  # Django's own, for case
    assert said in response.content.decode()
    assert list(User.objects.values_list("username", flat=True)) == ["alice"]


@pytest.mark.django_db
def test_the_database_refuses_a_look_alike_whatever_face_saves_it(alice: Any) -> None:
    """createsuperuser, a shell, any code that saves a user: the keys are written with it."""
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("\u0430lice", password=PASSWORD)
    bob = User.objects.create_user("bob", password=PASSWORD)
    bob.username = "alic\u0435"
    with pytest.raises(IntegrityError), transaction.atomic():
        bob.save()
    bob.refresh_from_db()
    bob.save()  # saved again as it is: nothing to refuse
    bob.username = "robert"
    bob.save()  # renamed to a name of its own
    assert set(User.objects.values_list("username", flat=True)) == {"alice", "robert"}


@pytest.mark.django_db
def test_the_admin_refuses_a_look_alike_when_adding_or_renaming_a_user(client: Client, alice: Any, staff: Any) -> None:
    client.force_login(staff)
    added = client.post(
        reverse("admin:auth_user_add"),
        {"username": "\u0430lice", "password1": PASSWORD, "password2": PASSWORD, "usable_password": "true"},
    )
    assert added.status_code == 200 and "looks like the name of another user" in added.content.decode()
    bob = User.objects.create_user("bob")
    change = reverse("admin:auth_user_change", args=[bob.pk])
    form = {"username": "a1ice", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00", "is_active": "on"}
    renamed = client.post(change, form)
    assert renamed.status_code == 200 and "looks like the name of another user" in renamed.content.decode()
    assert client.post(change, form | {"username": "bobby"}).status_code == 302
    assert set(User.objects.values_list("username", flat=True)) == {"alice", "bobby", "staff"}


@pytest.mark.django_db(transaction=True)
def test_look_alikes_signed_up_at_once_make_one_account() -> None:
    names = ["dora", "d\u043era", "DORA", "d0ra"]  # Cyrillic о; upper case; a zero
    answers = at_once([lambda name=name: sign_up(Client(raise_request_exception=False), name) for name in names])
    assert User.objects.count() == 1
    assert sorted(response.status_code for response in answers) == [200, 200, 200, 302]


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["rand0m", "RAND0M", "rnybot-like-random"])
def test_a_bot_name_that_looks_like_another_is_refused_on_every_face(
    client: Client, alice: Any, staff: Any, name: str
) -> None:
    bot_create(owner=staff, name="random")
    bot_create(owner=staff, name="mybot-like-random")
    with pytest.raises(ApplicationError, match="looks like this one"):
        bot_create(owner=alice, name=name)
    api = APIClient()
    api.force_authenticate(alice)
    answer = api.post("/api/bots/", {"name": name}, format="json")
    assert answer.status_code == 400 and "looks like this one" in answer.json()["error"]["message"]
    client.force_login(alice)
    page = client.post(reverse("my-bots"), {"name": name, "description": ""})
    assert page.status_code == 200 and "looks like this one" in page.content.decode()
    assert Bot.objects.count() == 2


@pytest.mark.django_db
def test_the_admin_refuses_to_rename_a_bot_to_a_look_alike(client: Client, staff: Any) -> None:
    bot_create(owner=staff, name="random")
    other = bot_create(owner=staff, name="other")
    client.force_login(staff)
    form = {
        "owner": staff.pk,
        "name": "rand0m",
        "description": "",
        "versions-TOTAL_FORMS": "0",
        "versions-INITIAL_FORMS": "0",
    }
    response = client.post(reverse("admin:bots_bot_change", args=[other.pk]), form)
    assert response.status_code == 200 and "looks like this one" in response.content.decode()
    other.refresh_from_db()
    assert other.name == "other"


# --- Password reset ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_password_reset_is_limited_per_address_and_per_client(client: Client, alice: Any, settings: Any) -> None:
    """25 requests for one address sent 25 mails; now 3 an hour, then a 429 that names no account.
    And one client asking for many addresses is stopped at 10 an hour."""
    alice.email = "alice@example.org"
    alice.save()
    answers = [client.post(reverse("password-reset"), {"email": "alice@example.org"}) for _ in range(25)]
    assert [answer.status_code for answer in answers[:3]] == [302] * 3
    assert {answer.status_code for answer in answers[3:]} == {429}
    assert "Too many password reset mails to this address" in answers[3].content.decode()
    assert len(mail.outbox) == 3
    caches["api"].clear()
    others = [client.post(reverse("password-reset"), {"email": f"nobody{n}@example.org"}) for n in range(11)]
    assert [answer.status_code for answer in others] == [302] * 10 + [429]
    assert "Too many password reset requests from your address" in others[10].content.decode()


@pytest.mark.django_db
def test_a_completed_reset_ends_every_session_and_the_api_token(client: Client, alice: Any) -> None:
    alice.email = "alice@example.org"
    alice.set_password("the-old-passphrase-1")
    alice.save()
    stolen = Client()  # whoever had the old password: a session on the pages, and the API token
    assert stolen.login(username="alice", password="the-old-passphrase-1")
    token = Token.objects.create(user=alice).key
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get("/api/me/").status_code == 200 and stolen.get(reverse("my-bots")).status_code == 200

    assert client.post(reverse("password-reset"), {"email": "alice@example.org"}).status_code == 302
    link = re.search(r"https?://[^\s]+/accounts/password-reset/[^\s]+/", mail.outbox[0].body)
    assert link is not None
    form_page = client.get(link.group(0), follow=True)
    done = client.post(form_page.redirect_chain[-1][0], {"new_password1": PASSWORD, "new_password2": PASSWORD})
    assert done.status_code == 302 and done["Location"] == reverse("password-reset-complete")

    assert api.get("/api/me/").status_code == 401  # before: the token still worked
    assert stolen.get(reverse("my-bots")).status_code == 302  # back to the login page
    assert not Token.objects.filter(user=alice).exists()
    assert Client().login(username="alice", password=PASSWORD)


# --- Sign-up asks for an address, and says why ------------------------------------------------------------


@pytest.mark.django_db
def test_sign_up_asks_for_an_optional_address_and_says_what_it_is_for(client: Client) -> None:
    page = client.get(reverse("signup")).content.decode()
    assert 'name="email"' in page and "Optional" in page
    assert "forget your password" in page and "never shown to anyone" in page
    assert sign_up(client, "dora").status_code == 302  # without one
    assert sign_up(Client(), "erin", email="erin@example.org").status_code == 302
    assert User.objects.get(username="erin").email == "erin@example.org"
    refused = sign_up(Client(), "fred", email="not an address")
    assert refused.status_code == 200 and not User.objects.filter(username="fred").exists()
