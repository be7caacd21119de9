"""GET/PUT/PATCH /api/me/notifications/: your own settings only, bad input a 400 naming the field
that changes nothing, the operation in the OpenAPI schema."""

from __future__ import annotations

from typing import Any

import pytest
from api_helpers import assert_error, client_for

from notifications.models import NotificationEvent, NotificationSettings

pytestmark = pytest.mark.django_db

URL = "/api/me/notifications/"
EVERY_EVENT = list(NotificationEvent.values)


def test_the_defaults_are_every_event_by_mail_and_no_webhook(alice: Any) -> None:
    body = client_for(alice).get(URL).json()
    assert body == {
        "email": "alice@example.org",
        "email_events": EVERY_EVENT,
        "webhook_events": EVERY_EVENT,
        "webhook_url": "",
        "recent": [],
    }
    assert not NotificationSettings.objects.exists()  # nothing written by a read


def test_put_replaces_the_settings_and_patch_changes_some(alice: Any, settings: Any) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    client = client_for(alice)
    body = client.put(
        URL,
        {
            "email": "a@example.net",
            "email_events": ["match_finished", "version_rejected", "match_finished"],
            "webhook_events": ["tournament_finished"],
            "webhook_url": " http://127.0.0.1:9/hook ",
        },
        format="json",
    ).json()
    assert body["email"] == "a@example.net"
    assert body["email_events"] == ["version_rejected", "match_finished"]  # in the documented order, once
    assert body["webhook_events"] == ["tournament_finished"] and body["webhook_url"] == "http://127.0.0.1:9/hook"
    body = client.patch(URL, {"email_events": []}, format="json").json()
    assert body["email_events"] == [] and body["webhook_events"] == ["tournament_finished"]
    stored = NotificationSettings.objects.get(user=alice)
    assert (stored.email_events, stored.webhook_url) == ([], "http://127.0.0.1:9/hook")
    alice.refresh_from_db()
    assert alice.email == "a@example.net"


def test_put_needs_every_setting(alice: Any) -> None:
    error = assert_error(client_for(alice).put(URL, {"email_events": []}, format="json"), 400, "invalid")
    assert set(error["fields"]) == {"webhook_events", "webhook_url"}


@pytest.mark.parametrize(
    ("change", "field", "says"),
    [
        ({"email_events": ["version_validated", "everything"]}, "email_events", '"everything" is not a valid choice.'),
        ({"webhook_events": "match_finished"}, "webhook_events", 'Expected a list of items but got type "str".'),
        (
            {"webhook_url": "https://10.0.0.1/hook"},
            "webhook_url",
            "10.0.0.1 resolves to 10.0.0.1, which is not a public",
        ),
        ({"webhook_url": "http://93.184.215.14/hook"}, "webhook_url", "the URL must start with https://"),
        ({"webhook_url": "https://localhost/hook"}, "webhook_url", "which is not a public address"),
        ({"webhook_url": "https://u:p@93.184.215.14/"}, "webhook_url", "must not contain a user name or password"),
        ({"email": "alice at example"}, "email", "is not an email address"),
    ],
)
def test_bad_input_names_the_field_and_changes_nothing(
    alice: Any, change: dict[str, Any], field: str, says: str
) -> None:
    client = client_for(alice)
    client.patch(URL, {"email_events": ["match_finished"]}, format="json")
    error = assert_error(
        client.patch(URL, change | {"webhook_events": []} if field != "webhook_events" else change, format="json"), 400
    )
    assert set(error["fields"]) == {field} and says in " ".join(error["fields"][field])
    stored = NotificationSettings.objects.get(user=alice)
    assert (stored.email_events, stored.webhook_events, stored.webhook_url) == (["match_finished"], EVERY_EVENT, "")
    alice.refresh_from_db()
    assert alice.email == "alice@example.org"


def test_each_user_reads_and_changes_only_their_own(alice: Any, bob: Any, anonymous: Any) -> None:
    client_for(bob).patch(URL, {"email_events": ["sprt_decided"]}, format="json")
    assert client_for(alice).get(URL).json()["email_events"] == EVERY_EVENT
    assert client_for(bob).get(URL).json()["email_events"] == ["sprt_decided"]
    assert_error(anonymous.get(URL), 401)
    assert_error(anonymous.put(URL, {"email_events": []}, format="json"), 401)
    assert not NotificationSettings.objects.filter(user=alice).exists()


def test_the_schema_documents_the_operations(anonymous: Any) -> None:
    schema = anonymous.get("/api/schema/?format=json").json()
    operations = schema["paths"]["/api/me/notifications/"]
    assert set(operations) >= {"get", "put", "patch"}
    assert operations["put"]["operationId"] == "me_notifications_update"
    assert {"400", "401"} <= set(operations["put"]["responses"])
