"""A version's SPRT in the API (GET/POST/DELETE /api/versions/{id}/sprt/, the version's detail,
/api/bots/{id}/sprt-setting/) and on its page (the block with its LLR bar, the JSON the page polls,
the owner's buttons): the numbers the services wrote, the owner alone acting, bad input refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from api_helpers import assert_error, play_queued
from django.test import Client

from tournaments.models import Match, SprtTest
from tournaments.services.sprt import sprt_record_match, sprt_start

pytestmark = pytest.mark.django_db

BUILTIN = Path(__file__).resolve().parents[2] / "lineit" / "builtin"


def bot_code(name: str) -> bytes:
    return (BUILTIN / f"{name}_bot.py").read_bytes()


@pytest.fixture
def versions(alice: Any, bot_factory: Any, version_factory: Any) -> tuple[Any, Any]:
    """alice's bot "alices": v1 plays as the built-in random bot, v2 as greedy."""
    bot = bot_factory(owner=alice, name="alices")
    return (
        version_factory(bot=bot, number=2, code=bot_code("greedy")),
        version_factory(bot=bot, number=1, code=bot_code("random")),
    )


def one_batch(test: SprtTest) -> SprtTest:
    """Play the test's batch (in process) and fold it in, as the worker and its task do."""
    play_queued(origin="sprt")
    assert test.current_match_id is not None
    sprt_record_match(match_id=test.current_match_id)
    test.refresh_from_db()
    return test


def test_the_test_is_read_as_the_services_wrote_it(versions, anonymous) -> None:  # type: ignore[no-untyped-def]
    new, old = versions
    assert_error(anonymous.get(f"/api/versions/{new.pk}/sprt/"), 404, "not_found")
    assert anonymous.get(f"/api/versions/{new.pk}/").json()["sprt"] is None
    test = one_batch(sprt_start(new_version=new, batch_games=6, max_games=60, seed=4))

    body = anonymous.get(f"/api/versions/{new.pk}/sprt/").json()
    assert (body["id"], body["status"], body["new_version"], body["old_version"]) == (
        test.pk,
        "running",
        new.pk,
        old.pk,
    )
    assert (body["games"], body["pairs"], body["batch_games"], body["seed"]) == (6, 3, 6, 4)
    assert list(body["pair_counts"].values()) == test.pair_counts and list(body["pair_counts"]) == [
        "0",
        "0.5",
        "1",
        "1.5",
        "2",
    ]
    assert body["llr"] == pytest.approx(test.llr) and body["llr_bounds"] == pytest.approx([-2.944, 2.944], abs=1e-3)
    assert body["elo_interval"] == [test.elo_low, test.elo_high] and body["state"] == "running:1"
    assert body["current_match"] == test.current_match_id and "6 games, 3 deal pairs" in body["text"]
    assert anonymous.get(f"/api/versions/{new.pk}/").json()["sprt"] == body  # the version's detail
    listed = {row["id"]: row["sprt"] for row in anonymous.get("/api/versions/").json()["results"]}
    assert listed == {new.pk: body, old.pk: None}  # the old version is tested in no test of its own


def test_the_owner_starts_and_cancels_a_test_and_nobody_else_may(versions, alice, bob, as_user, anonymous) -> None:  # type: ignore[no-untyped-def]
    new, old = versions
    url = f"/api/versions/{new.pk}/sprt/"
    assert_error(anonymous.post(url, {}, format="json"), 401, "not_authenticated")
    assert_error(as_user(bob).post(url, {}, format="json"), 403, "forbidden")
    error = assert_error(as_user(alice).post(url, {"elo0": 5, "elo1": 1}, format="json"), 400, "invalid")
    assert "elo0 must be below elo1" in error["message"]
    assert_error(as_user(alice).post(url, {"batch_games": "many"}, format="json"), 400)
    assert_error(as_user(alice).post(f"/api/versions/{old.pk}/sprt/", {}, format="json"), 400, "invalid")
    assert not SprtTest.objects.exists() and not Match.objects.exists()

    response = as_user(alice).post(url, {"elo1": 50, "batch_games": 4, "max_games": 40}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["elo1"], body["batch_games"], body["old_version"]) == ("running", 50, 4, old.pk)
    assert Match.objects.get().origin == "sprt"
    assert_error(as_user(alice).post(url, {}, format="json"), 409, "conflict")

    assert_error(as_user(bob).delete(url), 403, "forbidden")
    cancelled = as_user(alice).delete(url).json()
    assert (cancelled["status"], cancelled["reason"]) == ("cancelled", "cancelled by alice")
    assert Match.objects.get().status == "cancelled"
    assert_error(as_user(alice).delete(url), 409, "conflict")


def test_the_bots_setting(versions, alice, bob, as_user, anonymous) -> None:  # type: ignore[no-untyped-def]
    bot = versions[0].bot
    url = f"/api/bots/{bot.pk}/sprt-setting/"
    assert anonymous.get(url).json() == {"test_new_versions": True}
    assert_error(as_user(bob).put(url, {"test_new_versions": False}, format="json"), 403, "forbidden")
    assert_error(as_user(alice).put(url, {"test_new_versions": "perhaps"}, format="json"), 400)
    assert as_user(alice).put(url, {"test_new_versions": False}, format="json").json() == {"test_new_versions": False}
    assert anonymous.get(url).json() == {"test_new_versions": False}
    assert_error(anonymous.get("/api/bots/999999/sprt-setting/"), 404)


def test_the_schema_documents_the_endpoints(anonymous) -> None:  # type: ignore[no-untyped-def]
    schema = anonymous.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operations = schema["paths"]["/api/versions/{id}/sprt/"]
    assert {operations[method]["operationId"] for method in ("get", "post", "delete")} == {
        "versions_sprt",
        "versions_sprt_start",
        "versions_sprt_cancel",
    }
    assert "409" in operations["post"]["responses"]
    assert "/api/bots/{id}/sprt-setting/" in schema["paths"]
    assert "sprt" in schema["components"]["schemas"]["Version"]["properties"]


# --- The version page ---------------------------------------------------------------------------


def page(client: Client, version: Any) -> str:
    response = client.get(f"/bots/{version.bot.name}/v{version.number}/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_shows_the_test_live_then_its_verdict(versions, client, alice) -> None:  # type: ignore[no-untyped-def]
    new, old = versions
    test = sprt_start(new_version=new, batch_games=6, max_games=12, seed=4)
    html = page(client, new)
    assert "SPRT against the previous version" in html and 'data-live="/bots/alices/v2/sprt.json"' in html
    assert 'data-live-state="running:0"' in html and "web/live.js" in html
    assert 'meter min="-2.94' in html and "Cancel the SPRT" not in html  # anonymous: no buttons
    polled = client.get("/bots/alices/v2/sprt.json").json()
    assert (polled["state"], polled["games"]) == ("running:0", 0) and polled["text"].startswith("0 games")

    one_batch(test)
    polled = client.get("/bots/alices/v2/sprt.json").json()
    assert polled["state"] == "running:1" and polled["text"].startswith("6 games, 3 deal pairs")
    test = one_batch(test)
    assert test.status != "running"  # the cap (12 games) at the latest
    html = page(client, new)
    assert "data-live=" not in html and f"{test.games} games" in html and test.get_status_display() in html
    assert client.get("/bots/alices/v2/sprt.json").json()["state"] == f"{test.status}:2"
    assert client.get("/bots/alices/v1/sprt.json").status_code == 404

    client.force_login(alice)
    html = page(client, new)
    assert f"Test again against {old.label}" in html and 'name="test_new_versions" checked' in html


def test_the_owners_buttons(versions, client, alice, bob) -> None:  # type: ignore[no-untyped-def]
    new, _old = versions
    client.force_login(bob)
    assert client.post("/bots/alices/v2/sprt/start/").status_code == 403
    assert client.post("/bots/alices/sprt-setting/", {"version": "2"}).status_code == 403
    assert not SprtTest.objects.exists()
    client.force_login(alice)
    response = client.post("/bots/alices/v2/sprt/start/")
    assert response.status_code == 302 and response["Location"] == "/bots/alices/v2/#sprt"
    assert SprtTest.objects.get().status == "running" and "Cancel the SPRT" in page(client, new)
    client.post("/bots/alices/v2/sprt/cancel/")
    assert SprtTest.objects.get().status == "cancelled" and "cancelled by alice" in page(client, new)
    client.post("/bots/alices/sprt-setting/", {"version": "2"})  # the box unticked
    html = page(client, new)
    assert 'name="test_new_versions">' in html and "are no longer tested" in html
