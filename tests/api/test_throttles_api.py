"""Password guessing and other throttles of the API, as an attacker tries them: a new
X-Forwarded-For on every try, many addresses against one account, the API and the login page
taking turns. The pages share the API's counters (tests/web/test_page_limits.py)."""

from __future__ import annotations

from typing import Any

import pytest
from api_helpers import assert_error
from django.conf import settings
from django.test import override_settings
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

TOKEN = "/api/auth/token/"


@pytest.fixture
def alice_with_password(alice: Any) -> Any:
    alice.set_password("correct horse")
    alice.save()
    return alice


def guess(client: APIClient, password: str = "guess", *, username: str = "alice", **headers: str) -> Any:
    return client.post(TOKEN, {"username": username, "password": password}, **headers)


def test_a_new_forwarded_for_on_every_try_is_still_the_same_client(alice_with_password, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The bypass of the issue: no proxy is trusted, so X-Forwarded-For is the client's own writing.
    monkeypatch.setitem(settings.THROTTLE_RATES, "tokens", "3/min")
    client = APIClient(REMOTE_ADDR="203.0.113.9")
    for n in range(3):
        assert_error(guess(client, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}"), 401)
    response = guess(client, "correct horse", HTTP_X_FORWARDED_FOR="198.51.100.77")
    error = assert_error(response, 429, "throttled")
    assert error["message"].startswith("Too many sign-in attempts from your address: at most 3 per minute.")
    assert int(response["Retry-After"]) > 0
    assert not Token.objects.exists()
    # Another address is another client.
    assert guess(APIClient(REMOTE_ADDR="203.0.113.10"), "correct horse").status_code == 200


@override_settings(TRUSTED_PROXIES=["10.0.0.0/8"])
def test_behind_a_trusted_proxy_clients_are_told_apart_and_spoofing_does_not_help(
    alice_with_password, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(settings.THROTTLE_RATES, "tokens", "2/min")
    proxy = APIClient(REMOTE_ADDR="10.0.0.2")
    for n in range(2):  # the client forges the left part of the list; the proxy appended the right
        assert_error(guess(proxy, HTTP_X_FORWARDED_FOR=f"1.1.1.{n}, 198.51.100.20"), 401)
    assert_error(guess(proxy, HTTP_X_FORWARDED_FOR="9.9.9.9, 198.51.100.20"), 429, "throttled")
    # Another client behind the same proxy has its own count.
    assert guess(proxy, "correct horse", HTTP_X_FORWARDED_FOR="198.51.100.21").status_code == 200


def test_a_guesser_cannot_lock_the_owner_out(alice_with_password, client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The issue: 30 wrong passwords from one address refused alice for an hour, right password included.
    monkeypatch.setitem(settings.THROTTLE_RATES, "tokens", "100/min")
    monkeypatch.setitem(settings.THROTTLE_RATES, "login_failures", "3/hour")
    guesser = APIClient(REMOTE_ADDR="203.0.113.66")
    for _ in range(3):
        assert_error(guess(guesser), 401)
    for _ in range(27):
        error = assert_error(guess(guesser), 429, "throttled")
        assert "failed sign-ins to this account from your address" in error["message"]
    # The guesser is refused even with the right password (it learns nothing from the answer)...
    assert_error(guess(guesser, "correct horse"), 429, "throttled")
    assert_error(guess(guesser, "correct horse", username="ALICE"), 429, "throttled")
    assert not Token.objects.exists()
    # ...and alice, who has not been guessing, gets in at once: through the API and on the page.
    assert guess(APIClient(REMOTE_ADDR="198.51.100.7"), "correct horse").status_code == 200
    page = client.post(reverse("login"), {"username": "alice", "password": "correct horse"}, REMOTE_ADDR="198.51.100.8")
    assert page.status_code == 302


def test_guessing_many_accounts_from_one_address_is_limited(alice_with_password, bob, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(settings.THROTTLE_RATES, "login_failures_address", "4/hour")
    sprayer = APIClient(REMOTE_ADDR="203.0.113.77")
    for name in ("alice", "bob", "carol", "dave"):
        assert_error(guess(sprayer, username=name), 401)
    error = assert_error(guess(sprayer, "correct horse"), 429, "throttled")
    assert "failed sign-ins from your address: at most 4 per hour" in error["message"]
    assert guess(APIClient(REMOTE_ADDR="203.0.113.78"), "correct horse").status_code == 200


def test_a_distributed_attack_slows_only_unknown_guessers(alice_with_password, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(settings.THROTTLE_RATES, "login_failures", "5/hour")
    monkeypatch.setitem(settings.THROTTLE_RATES, "login_failures_account", "6/hour")
    home = APIClient(REMOTE_ADDR="198.51.100.1")
    assert guess(home, "correct horse").status_code == 200  # alice's own address: known from now on
    for n in range(7):  # a botnet: one wrong guess from each of 7 addresses puts the account under attack
        assert_error(guess(APIClient(REMOTE_ADDR=f"203.0.113.{n}")), 401)
    bot = APIClient(REMOTE_ADDR="203.0.113.50")
    for _ in range(2):
        assert_error(guess(bot), 401)
    error = assert_error(guess(bot), 429, "throttled")  # an unknown address: 2 wrong guesses, not 5
    assert "from many addresses" in error["message"]
    # Alice gets in from anywhere she has not been guessing: a new address, or home after typos.
    assert guess(APIClient(REMOTE_ADDR="192.0.2.44"), "correct horse").status_code == 200
    for _ in range(3):
        assert_error(guess(home), 401)
    assert guess(home, "correct horse").status_code == 200


def test_a_right_password_does_not_count_as_a_failure(alice_with_password, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(settings.THROTTLE_RATES, "login_failures", "2/hour")
    client = APIClient()
    for _ in range(5):
        assert guess(client, "correct horse").status_code == 200
    assert_error(guess(client), 401)
    assert guess(client, "correct horse").status_code == 200


def test_the_api_and_the_login_page_share_one_count_per_address(client, alice_with_password, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(settings.THROTTLE_RATES, "tokens", "4/min")
    api = APIClient()
    for _ in range(2):
        assert_error(guess(api), 401)
        assert client.post(reverse("login"), {"username": "alice", "password": "guess"}).status_code == 200
    assert_error(guess(api, "correct horse"), 429, "throttled")
    page = client.post(reverse("login"), {"username": "alice", "password": "correct horse"})
    assert page.status_code == 429 and "Too many sign-in attempts from your address" in page.content.decode()
