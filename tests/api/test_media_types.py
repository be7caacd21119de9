"""A write whose body is of a media type the API does not read gets a 415 in the one error shape,
and every write operation of the schema documents it."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_a_body_of_an_unread_media_type_is_a_415_in_the_error_shape(client: Client, alice) -> None:  # type: ignore[no-untyped-def]
    client.force_login(alice)
    response = client.generic("PUT", "/api/me/notifications/", b"email_events: []", content_type="text/yaml")
    assert response.status_code == 415
    assert response.json()["error"]["status"] == 415 and response.json()["error"]["code"] == "unsupported_media_type"


def test_every_write_operation_documents_the_415(client: Client) -> None:
    schema = client.get(reverse("api-schema") + "?format=json").json()
    writes = [
        (path, method, operation)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method in ("post", "put", "patch", "delete")
    ]
    assert writes
    assert [(path, method) for path, method, operation in writes if "415" not in operation["responses"]] == []
