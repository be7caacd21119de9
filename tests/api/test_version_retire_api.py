"""POST /api/versions/{id}/retire/: an owner takes a version out of play whatever its state, a
version stuck validating included; nobody else may."""

from __future__ import annotations

import pytest
from api_helpers import assert_error

from bots.models import BotVersion

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("state", ["validating", "active"])
def test_the_owner_retires_a_live_version(alice, as_user, version_factory, state) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice, status=state)
    response = as_user(alice).post(f"/api/versions/{version.pk}/retire/")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["id"], body["status"]) == (version.pk, "retired") and body["retired_at"]
    assert BotVersion.objects.get(pk=version.pk).status == "retired"


@pytest.mark.parametrize("state", ["rejected", "retired"])
def test_a_version_out_of_play_is_answered_as_it_is(alice, as_user, version_factory, state) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice, status=state)
    response = as_user(alice).post(f"/api/versions/{version.pk}/retire/")
    assert response.status_code == 200 and response.json()["status"] == state


def test_staff_may_retire_anyones_version(alice, staff, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice)
    assert as_user(staff).post(f"/api/versions/{version.pk}/retire/").json()["status"] == "retired"


def test_a_rival_or_anonymous_cannot_retire(alice, bob, anonymous, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice)
    assert_error(as_user(bob).post(f"/api/versions/{version.pk}/retire/"), 403, "permission_denied")
    assert_error(anonymous.post(f"/api/versions/{version.pk}/retire/"), 401, "not_authenticated")
    assert_error(as_user(alice).post("/api/versions/999999/retire/"), 404, "not_found")
    assert_error(as_user(alice).get(f"/api/versions/{version.pk}/retire/"), 405, "method_not_allowed")
    assert BotVersion.objects.get(pk=version.pk).status == "active"
