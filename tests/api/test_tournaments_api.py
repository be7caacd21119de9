"""Tournaments through the API: anyone reads them (rounds, standings, bracket); staff create,
start and cancel them; owners sign their own bots up while sign-up is open."""

from __future__ import annotations

from datetime import timedelta

import pytest
from api_helpers import assert_error, play_queued
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tournaments.models import Tournament, TournamentEntry
from tournaments.services.tournaments.running import tournament_advance

pytestmark = pytest.mark.django_db


def soon() -> str:
    return (timezone.now() + timedelta(minutes=5)).isoformat()


def payload(versions, **extra):  # type: ignore[no-untyped-def]
    return {
        "name": "cup",
        "format": "single",
        "starts_at": soon(),
        "games_per_pairing": 2,
        "versions": [v.pk for v in versions],
    } | extra


def test_staff_run_an_elimination_that_anyone_can_follow(staff, anonymous, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(4)]
    client = as_user(staff)
    created = client.post("/api/tournaments/", payload(versions), format="json")
    assert created.status_code == 201, created.content
    tournament = created.json()
    assert (tournament["status"], tournament["entry_count"], len(tournament["entries"])) == ("scheduled", 4, 4)
    started = client.post(f"/api/tournaments/{tournament['id']}/start/")
    assert started.status_code == 200 and started.json()["status"] == "running"
    assert_error(client.post(f"/api/tournaments/{tournament['id']}/start/"), 409, "conflict")
    for _ in range(3):
        play_queued(tournament_id=tournament["id"])
        tournament_advance(tournament_id=tournament["id"])
    detail = anonymous.get(f"/api/tournaments/{tournament['id']}/").json()
    assert detail["status"] == "finished"
    rounds = anonymous.get(f"/api/tournaments/{tournament['id']}/rounds/").json()["rounds"]
    assert [len(r["tables"]) for r in rounds] == [2, 1] and all(r["played"] for r in rounds)
    final = anonymous.get(f"/api/tournaments/{tournament['id']}/standings/").json()["after_round"][-1]
    assert len(final["rows"]) == 4
    bracket = anonymous.get(f"/api/tournaments/{tournament['id']}/bracket/").json()
    assert all(match["match"]["status"] == "finished" for match in bracket["matches"] if match["match"])
    matches = anonymous.get(f"/api/matches/?tournament={tournament['id']}").json()["results"]
    assert len(matches) == 3
    assert anonymous.get("/api/tournaments/?status=finished").json()["count"] == 1


def test_only_staff_create_start_and_cancel(alice, anonymous, as_user, staff, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(bot__owner=alice) for _ in range(2)]
    assert_error(as_user(alice).post("/api/tournaments/", payload(versions), format="json"), 403, "permission_denied")
    assert_error(anonymous.post("/api/tournaments/", payload(versions), format="json"), 401)
    assert not Tournament.objects.exists()
    tournament = as_user(staff).post("/api/tournaments/", payload(versions), format="json").json()
    assert_error(as_user(alice).post(f"/api/tournaments/{tournament['id']}/start/"), 403)
    assert_error(as_user(alice).post(f"/api/tournaments/{tournament['id']}/cancel/"), 403)
    cancelled = as_user(staff).post(f"/api/tournaments/{tournament['id']}/cancel/", {"note": "rain"}, format="json")
    assert cancelled.json()["status"] == "cancelled" and cancelled.json()["note"] == "rain"
    assert_error(as_user(staff).post(f"/api/tournaments/{tournament['id']}/cancel/"), 409, "conflict")


@pytest.mark.parametrize(
    ("extra", "status", "text"),
    [
        ({"format": "chess"}, 400, "format"),
        ({"table_size": 9}, 400, "table_size"),
        ({"starts_at": "tomorrow"}, 400, "starts_at"),
        ({"versions": [987654]}, 404, "987654"),
        ({"versions": "twice"}, 400, "only once"),
        ({"participation": "open", "versions": []}, 201, ""),
    ],
)
def test_bad_tournaments_are_refused_and_change_nothing(staff, as_user, version_factory, extra, status, text) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    body = payload(versions) | extra
    if extra.get("versions") == "twice":
        body["versions"] = [versions[0].pk, versions[0].pk]
    response = as_user(staff).post("/api/tournaments/", body, format="json")
    if status == 201:
        assert response.status_code == 201
        return
    assert text in assert_error(response, status)["message"]
    assert not Tournament.objects.exists()


def test_owners_sign_their_own_bots_up(alice, bob, staff, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    mine = version_factory(bot__owner=alice)
    body = payload([]) | {"participation": "open"}
    tournament = as_user(staff).post("/api/tournaments/", body, format="json").json()
    url = f"/api/tournaments/{tournament['id']}/entries/"
    assert_error(as_user(bob).post(url, {"bot": mine.bot_id}, format="json"), 403, "forbidden")
    entry = as_user(alice).post(url, {"bot": mine.bot_id}, format="json")
    assert entry.status_code == 201 and entry.json()["label"] is None  # frozen at the start
    assert_error(as_user(alice).post(url, {"bot": mine.bot_id}, format="json"), 409, "conflict")
    assert_error(as_user(alice).post(url, {"bot": 987654}, format="json"), 404)
    assert TournamentEntry.objects.count() == 1


def test_round_robin_has_no_bracket(staff, anonymous, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    body = payload([version_factory(), version_factory()], format="round-robin")
    tournament = as_user(staff).post("/api/tournaments/", body, format="json").json()
    assert_error(anonymous.get(f"/api/tournaments/{tournament['id']}/bracket/"), 404, "not_found")
    assert anonymous.get(f"/api/tournaments/{tournament['id']}/standings/").json()["after_round"] == []


def test_the_tournament_list_is_bounded(staff, anonymous, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    as_user(staff).post("/api/tournaments/", payload(versions), format="json")

    def count() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert anonymous.get("/api/tournaments/?page_size=30").status_code == 200
        return len(captured)

    few = count()
    for _ in range(29):
        as_user(staff).post("/api/tournaments/", payload(versions), format="json")
    assert count() == few and len(anonymous.get("/api/tournaments/?page_size=30").json()["results"]) == 30
