"""The leaderboard and rating history; tokens (obtain, rotate, revoke); the one error shape for
errors raised anywhere; the schema and its documentation pages, served without a CDN."""

from __future__ import annotations

import pytest
from api_helpers import assert_error, client_for
from django.conf import settings
from django.contrib.staticfiles import finders
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots.models import Bot
from lineit.stats.elo import PROVISIONAL_GAMES
from tournaments.models import Rating, RatingEvent

pytestmark = pytest.mark.django_db


# --- Leaderboard and rating history -----------------------------------------------------------


def test_the_leaderboard_ranks_rated_versions_with_games_and_provisional_marks(  # type: ignore[no-untyped-def]
    anonymous, version_factory, play_match
) -> None:
    a, b, c = version_factory(), version_factory(), version_factory()
    play_match([a, b], ranked=True, games=4, seed=1)
    play_match([b, c], ranked=True, games=4, seed=2)
    Rating.objects.filter(version=c).update(games=PROVISIONAL_GAMES)  # as if c had played long
    body = anonymous.get("/api/leaderboard/?ruleset=standard").json()
    rows = body["results"]
    stored = list(Rating.objects.order_by("-rating", "version_id"))
    assert body["count"] == 3
    assert [row["version"] for row in rows] == [rating.version_id for rating in stored]
    assert [row["rank"] for row in rows] == [1, 2, 3]
    assert [row["rating"] for row in rows] == [rating.rating for rating in stored]
    games = {row["version"]: (row["games"], row["provisional"]) for row in rows}
    assert games == {a.pk: (4, True), b.pk: (8, True), c.pk: (PROVISIONAL_GAMES, False)}
    second_page = anonymous.get("/api/leaderboard/?page=2&page_size=2").json()["results"]
    assert [(row["rank"], row["version"]) for row in second_page] == [(3, stored[2].version_id)]
    assert [row["version"] for row in anonymous.get("/api/leaderboard/?provisional=false").json()["results"]] == [c.pk]
    assert anonymous.get("/api/leaderboard/?ruleset=bga").json()["count"] == 0
    assert_error(anonymous.get("/api/leaderboard/?ruleset=chess"), 400, "invalid")


def test_a_versions_rating_history_is_its_events_in_order(anonymous, version_factory, play_match) -> None:  # type: ignore[no-untyped-def]
    a, b = version_factory(), version_factory()
    play_match([a, b], ranked=True, games=2, seed=3)
    play_match([b, a], ranked=True, games=2, seed=4)
    leaderboard_row = next(r for r in anonymous.get("/api/leaderboard/").json()["results"] if r["version"] == a.pk)
    history = anonymous.get(leaderboard_row["history_url"]).json()["results"]
    events = list(RatingEvent.objects.filter(version=a).order_by("id"))
    assert [(e["match"], e["game_index"], e["after"]) for e in history] == [
        (event.match_id, event.game_index, event.after) for event in events
    ]
    assert history[-1]["after"] == Rating.objects.get(version=a).rating
    assert history[0]["before"] == 1500.0
    assert anonymous.get(f"/api/versions/{a.pk}/rating-history/?ruleset=bga").json()["results"] == []
    assert_error(anonymous.get("/api/versions/987654/rating-history/"), 404, "not_found")


# --- Tokens -----------------------------------------------------------------------------------


def test_a_script_obtains_rotates_and_revokes_its_token(alice) -> None:  # type: ignore[no-untyped-def]
    alice.set_password("correct horse")
    alice.save()
    client = APIClient()
    first = client.post("/api/auth/token/", {"username": "alice", "password": "correct horse"}).json()["token"]
    assert client.post("/api/auth/token/", {"username": "alice", "password": "correct horse"}).json()["token"] == first
    client.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    assert client.get("/api/me/").json()["username"] == "alice"
    second = client.post("/api/auth/token/rotate/").json()["token"]
    assert second != first
    assert_error(client.get("/api/me/"), 401, "authentication_failed")  # the old token is dead
    client.credentials(HTTP_AUTHORIZATION=f"Token {second}")
    assert client.get("/api/me/").status_code == 200
    assert client.delete("/api/auth/token/").status_code == 204
    assert not Token.objects.filter(user=alice).exists()


def test_wrong_passwords_get_no_token_and_are_throttled(alice, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(settings.THROTTLE_RATES, "tokens", "3/min")
    alice.set_password("correct horse")
    alice.save()
    client = APIClient()
    for _ in range(3):
        assert_error(client.post("/api/auth/token/", {"username": "alice", "password": "guess"}), 401)
    assert_error(client.post("/api/auth/token/", {"username": "alice", "password": "correct horse"}), 429, "throttled")
    assert not Token.objects.exists()
    assert_error(APIClient().post("/api/auth/token/rotate/"), 401, "not_authenticated")


def test_a_bad_token_is_refused_even_for_public_reads(db) -> None:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_error(client.get("/api/bots/"), 401, "authentication_failed")


def test_session_sign_in_drives_the_browsable_api(alice) -> None:  # type: ignore[no-untyped-def]
    alice.set_password("correct horse")
    alice.save()
    client = APIClient(enforce_csrf_checks=True)
    assert client.get("/api/auth/login/").status_code == 200
    client.login(username="alice", password="correct horse")
    page = client.get("/api/bots/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and b"alice" in page.content
    # Without the CSRF token a session cannot write.
    assert_error(client.post("/api/bots/", {"name": "csrf-less"}, format="json"), 403, "permission_denied")
    assert not Bot.objects.exists()


# --- The one error shape ----------------------------------------------------------------------


def test_every_kind_of_error_has_the_one_shape(alice, anonymous, monkeypatch, version_factory, play_match) -> None:  # type: ignore[no-untyped-def]
    assert_error(anonymous.get("/api/no-such-endpoint/"), 404, "not_found")
    assert_error(anonymous.get("/api/games/a%0Ab/"), 404, "not_found")  # found by schemathesis
    csrf_client = APIClient(enforce_csrf_checks=True)
    assert_error(csrf_client.post("/api/bots/x/versions/"), 404, "not_found")  # not a CSRF page
    assert_error(client_for(alice).delete("/api/bots/"), 405, "method_not_allowed")
    assert_error(client_for(alice).put("/api/leaderboard/", {}), 405, "method_not_allowed")
    assert_error(anonymous.get("/api/bots/", HTTP_ACCEPT="application/xml"), 406, "not_acceptable")
    response = client_for(alice).post("/api/bots/", b"name=x", content_type="text/csv")
    assert_error(response, 415, "unsupported_media_type")
    assert_error(anonymous.get("/api/bots/?page=99"), 404, "not_found")


def test_a_server_error_is_logged_and_answered_in_the_error_shape(  # type: ignore[no-untyped-def]
    anonymous, monkeypatch, version_factory, play_match, caplog
) -> None:
    match = play_match([version_factory(), version_factory()])
    game_id = match.game_logs.first().pk

    def broken(document):  # type: ignore[no-untyped-def]
        raise RuntimeError("engine exploded")

    monkeypatch.setattr("lineit_platform.api.views.matches.verify_replay", broken)
    error = assert_error(anonymous.get(f"/api/games/{game_id}/verification/"), 500, "server_error")
    assert "engine exploded" not in error["message"]  # no internals leak out
    assert "engine exploded" in caplog.text


# --- Schema and documentation -----------------------------------------------------------------


def test_the_schema_and_the_documentation_pages_need_no_cdn(anonymous) -> None:  # type: ignore[no-untyped-def]
    schema = anonymous.get("/api/schema/?format=json")
    assert schema.status_code == 200
    document = schema.json()
    assert document["openapi"].startswith("3.") and "/api/matches/" in document["paths"]
    assert "Error" in document["components"]["schemas"]
    for page in ("/api/docs/", "/api/redoc/"):
        html = anonymous.get(page).content.decode()
        assert "cdn" not in html.lower() and "//unpkg" not in html and "jsdelivr" not in html
        assert "/static/drf_spectacular_sidecar/" in html
    # The assets the pages load are static files of this site.
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert finders.find("drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js")
