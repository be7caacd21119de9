"""The My notifications page: linked from the account menu, shows your settings and your last
notifications, saves them through the service, refuses bad input with the form's errors and
changes nothing; only your own (the page names nobody)."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from notifications.models import Notification, NotificationEvent, NotificationSettings

pytestmark = pytest.mark.django_db

EVERY_EVENT = list(NotificationEvent.values)


def test_the_page_needs_a_login(client: Any) -> None:
    response = client.get(reverse("my-notifications"))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_the_account_menu_links_to_it_and_it_shows_the_defaults(client: Any, alice: Any) -> None:
    client.force_login(alice)
    page = client.get(reverse("my-bots")).content.decode()
    assert f'href="{reverse("my-notifications")}">My notifications</a>' in page
    response = client.get(reverse("my-notifications"))
    form = response.context["form"]
    assert form["email"].value() == "alice@example.org"
    assert form["email_events"].value() == EVERY_EVENT and form["webhook_url"].value() == ""
    assert "Nothing sent yet." in response.content.decode()


def test_saving_the_settings(client: Any, alice: Any, settings: Any) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    client.force_login(alice)
    response = client.post(
        reverse("my-notifications"),
        {
            "email": "alice@example.net",
            "email_events": ["version_rejected"],
            "webhook_events": ["match_finished", "sprt_decided"],
            "webhook_url": "http://127.0.0.1:9/hook",
        },
        follow=True,
    )
    assert response.redirect_chain == [(reverse("my-notifications"), 302)]
    assert "Your notification settings were saved." in response.content.decode()
    stored = NotificationSettings.objects.get(user=alice)
    assert stored.email_events == ["version_rejected"]
    assert (
        stored.webhook_events == ["sprt_decided", "match_finished"] and stored.webhook_url == "http://127.0.0.1:9/hook"
    )
    alice.refresh_from_db()
    assert alice.email == "alice@example.net"


def test_nothing_ticked_turns_every_event_off(client: Any, alice: Any) -> None:
    client.force_login(alice)
    client.post(reverse("my-notifications"), {"email": "", "webhook_url": ""})
    stored = NotificationSettings.objects.get(user=alice)
    assert (stored.email_events, stored.webhook_events) == ([], [])
    alice.refresh_from_db()
    assert alice.email == ""


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        (
            "webhook_url",
            "https://192.168.1.10/hook",
            "192.168.1.10 resolves to 192.168.1.10, which is not a public address",
        ),
        ("webhook_url", "http://93.184.215.14/hook", "the URL must start with https://"),
        ("webhook_url", "https://localhost/hook", "which is not a public address"),
        ("email", "alice@", "is not an email address"),
        ("email_events", "everything", "Select a valid choice. everything is not one of the available choices."),
    ],
)
def test_bad_input_shows_the_error_and_changes_nothing(
    client: Any, alice: Any, field: str, value: str, says: str
) -> None:
    client.force_login(alice)
    data = {"email": "alice@example.org", "email_events": ["match_finished"], "webhook_url": ""} | {field: value}
    response = client.post(reverse("my-notifications"), data)
    assert response.status_code == 200
    assert says in " ".join(response.context["form"].errors[field])
    assert not NotificationSettings.objects.filter(user=alice).exists()
    alice.refresh_from_db()
    assert alice.email == "alice@example.org"


def test_each_user_sees_and_changes_only_their_own(client: Any, alice: Any, bob: Any) -> None:
    Notification.objects.create(
        user=alice,
        event="match_finished",
        channel="email",
        key="match:1:ended",
        destination="alice@example.org",
        subject="[Line-it Arena] Your test match 1 finished",
        text="...",
        status="failed",
        attempts=5,
        last_error="mail: SMTPServerDisconnected",
    )
    client.force_login(bob)
    page = client.get(reverse("my-notifications")).content.decode()
    assert "Your test match 1 finished" not in page
    client.post(reverse("my-notifications"), {"email": "bob@example.org", "email_events": ["sprt_decided"]})
    assert not NotificationSettings.objects.filter(user=alice).exists()
    assert NotificationSettings.objects.get(user=bob).email_events == ["sprt_decided"]
    client.force_login(alice)
    page = client.get(reverse("my-notifications")).content.decode()
    assert "Your test match 1 finished" in page and "mail: SMTPServerDisconnected (5 attempts)" in page
