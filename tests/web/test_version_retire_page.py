"""The version page's "Retire" button: shown to the owner of a live version (validating or
active), it takes the version out of play; nobody else may."""

from __future__ import annotations

import pytest

from bots.models import BotVersion

pytestmark = pytest.mark.django_db


def page(version: BotVersion) -> str:
    return f"/bots/{version.bot.name}/v{version.number}/"


def test_the_owner_retires_a_version_stuck_validating(client, alice, version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice, bot__name="stuck-bot", status="validating")
    client.force_login(alice)
    shown = client.get(page(version)).content.decode()
    assert f"Retire {version.label}" in shown and "never validated" in shown
    response = client.post(page(version) + "retire/", follow=True)
    assert response.redirect_chain[-1][0] == page(version)
    text = response.content.decode()
    assert "is retired" in text and "before its validation game ended" in text
    assert f"Retire {version.label}" not in text
    assert BotVersion.objects.get(pk=version.pk).status == "retired"


def test_a_rejected_version_is_left_as_it_is(client, alice, version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice, status="rejected", rejection_reason="validation game failed")
    client.force_login(alice)
    assert "Retire" not in client.get(page(version)).content.decode()
    response = client.post(page(version) + "retire/", follow=True)
    assert "plays no matches already" in response.content.decode()
    assert BotVersion.objects.get(pk=version.pk).status == "rejected"


def test_nobody_else_may_retire_it(client, alice, bob, version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice)
    assert client.post(page(version) + "retire/").status_code == 302  # to the login page
    client.force_login(bob)
    assert "Retire" not in client.get(page(version)).content.decode()
    assert client.post(page(version) + "retire/").status_code == 403
    assert client.get(page(version) + "retire/").status_code == 405
    assert BotVersion.objects.get(pk=version.pk).status == "active"
