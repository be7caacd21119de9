"""Writes of a row that must be unique, made at the same moment through the pages and the API, each
on its own PostgreSQL connection: one wins, every other is told why, none is a server error. A
double click on "Sign up", two scripts creating one bot name, two tabs opening the token page for
the first time, two rotations of one token: each once answered 500 (the unique column's
IntegrityError). Bot names are unique in any case, whichever face asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from simultaneous import at_once

from bots.models import Bot

pytestmark = pytest.mark.django_db(transaction=True)

AT_ONCE = 8


def page_as(user: Any) -> Callable[[], Client]:
    signed_in = Client()
    signed_in.force_login(user)

    def client() -> Client:
        page = Client(raise_request_exception=False)
        page.cookies = signed_in.cookies
        return page

    return client


def api_as(user: Any) -> Callable[[], APIClient]:
    key = Token.objects.get_or_create(user=user)[0].key

    def client() -> APIClient:
        api = APIClient(raise_request_exception=False)
        api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        return api

    return client


def test_one_bot_name_asked_for_at_once_through_both_faces_makes_one_bot(alice: Any, bob: Any) -> None:
    page, api = page_as(alice), api_as(bob)

    def from_the_page(name: str) -> Callable[[], tuple[str, int, str]]:
        return lambda: ("page", *_answer(page().post(reverse("my-bots"), {"name": name, "description": ""})))

    def from_the_api(name: str) -> Callable[[], tuple[str, int, str]]:
        return lambda: ("api", *_answer(api().post("/api/bots/", {"name": name}, format="json")))

    names = ["twin", "Twin", "TWIN", "twin"]
    answers = at_once([maker(name) for name in names for maker in (from_the_page, from_the_api)])

    assert Bot.objects.filter(name__iexact="twin").count() == 1
    made = [answer for answer in answers if answer[1] in (201, 302)]
    refused = [answer for answer in answers if answer[1] not in (201, 302)]
    assert len(made) == 1 and len(refused) == AT_ONCE - 1, answers
    for face, status, text in refused:
        assert (face, status) in (("page", 200), ("api", 400)), answers
        assert "already exists" in text


def _answer(response: Any) -> tuple[int, str]:
    return response.status_code, response.content.decode()


def test_a_name_taken_in_another_case_is_refused_by_the_api_as_by_the_page(alice: Any, bob: Any) -> None:
    Bot.objects.create(owner=alice, name="random-walker")
    response = api_as(bob)().post("/api/bots/", {"name": "Random-Walker"}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("name: a bot with this name already exists")
    page = page_as(bob)().post(reverse("my-bots"), {"name": "RANDOM-walker", "description": ""})
    assert page.status_code == 200 and "already exists" in page.content.decode()
    assert list(Bot.objects.values_list("name", flat=True)) == ["random-walker"]


def test_one_username_signed_up_at_once_makes_one_account() -> None:
    form = {"username": "dora", "password1": "a-long-passphrase-42", "password2": "a-long-passphrase-42"}
    answers = at_once([lambda: _answer(Client(raise_request_exception=False).post(reverse("signup"), form))] * AT_ONCE)
    assert User.objects.filter(username="dora").count() == 1
    assert sorted(status for status, _ in answers) == [200] * (AT_ONCE - 1) + [302]
    assert all("already exists" in text for status, text in answers if status == 200)


def test_the_token_page_opened_at_once_makes_one_token(alice: Any) -> None:
    page = page_as(alice)
    answers = at_once([lambda: _answer(page().get(reverse("api-token")))] * AT_ONCE)
    assert [status for status, _ in answers] == [200] * AT_ONCE
    (key,) = Token.objects.filter(user=alice).values_list("key", flat=True)
    assert all(key in text for _, text in answers)


def test_rotations_at_once_through_both_faces_leave_one_working_token(alice: Any) -> None:
    page, api = page_as(alice), api_as(alice)
    old = Token.objects.get(user=alice).key
    answers = at_once(
        [lambda: ("page", page().post(reverse("api-token")).status_code)] * (AT_ONCE // 2)
        + [lambda: ("api", api().post("/api/auth/token/rotate/").status_code)] * (AT_ONCE // 2)
    )
    # The page's rotations all go through (the session signs them in); of the API's, signed in
    # with one token, at most one replaces it: the others find it replaced already (401).
    assert sorted(status for face, status in answers if face == "page") == [302] * (AT_ONCE // 2)
    api_statuses = [status for face, status in answers if face == "api"]
    assert set(api_statuses) <= {200, 401} and api_statuses.count(200) <= 1, answers
    (key,) = Token.objects.filter(user=alice).values_list("key", flat=True)
    assert key != old
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert fresh.get("/api/me/").status_code == 200


def test_the_token_page_rotates_within_the_api_s_limit(alice: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Rotating through the page counts as the API's rotation does (sign-in attempts per address).
    monkeypatch.setitem(settings.THROTTLE_RATES, "tokens", "2/min")
    page = page_as(alice)()
    assert [page.post(reverse("api-token")).status_code for _ in range(2)] == [302, 302]
    kept = Token.objects.get(user=alice).key
    refused = page.post(reverse("api-token"))
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Too many sign-in attempts" in refused.content.decode() and kept in refused.content.decode()
    assert Token.objects.get(user=alice).key == kept
    assert APIClient().post("/api/auth/token/rotate/", HTTP_AUTHORIZATION=f"Token {kept}").status_code == 429
