"""Matches and games through the API: filtering, detail with per-game results and failures (stderr
for the owner only), requesting unranked matches within the quota, replays and verification."""

from __future__ import annotations

import pytest
from api_helpers import CRASHING_BOT, assert_error
from django.conf import settings
from django.test import override_settings

from lineit.engine import verify_replay
from tournaments.models import Game, Match

pytestmark = pytest.mark.django_db


# --- Browsing and filtering -------------------------------------------------------------------


def test_the_match_list_filters_by_bot_version_status_ruleset_ranked_and_date(  # type: ignore[no-untyped-def]
    alice, bob, anonymous, version_factory, play_match
) -> None:
    alices = version_factory(bot__owner=alice)
    bobs = version_factory(bot__owner=bob)
    thirds = version_factory()
    ranked = play_match([alices, bobs], ranked=True)
    twice = play_match([alices, alices])  # one version in both seats: listed once
    queued = Match.objects.create(ruleset="bga", rules_version="1.0", num_players=2, games=2, seed=1, status="queued")
    queued.entrants.create(index=0, version=bobs)
    queued.entrants.create(index=1, version=thirds)

    def ids(query: str) -> list[int]:
        response = anonymous.get(f"/api/matches/{query}")
        assert response.status_code == 200, response.content
        return [match["id"] for match in response.json()["results"]]

    assert ids("") == [queued.pk, twice.pk, ranked.pk]  # newest first
    assert ids(f"?bot={alices.bot_id}") == [twice.pk, ranked.pk]
    assert ids(f"?version={thirds.pk}") == [queued.pk]
    assert ids("?status=finished&ranked=true") == [ranked.pk]
    assert ids("?ranked=false&ruleset=standard") == [twice.pk]
    assert ids("?ruleset=bga") == [queued.pk]
    finished_at = Match.objects.get(pk=twice.pk).finished_at
    assert ids(f"?finished_after={finished_at.isoformat().replace('+00:00', 'Z')}") == [twice.pk]
    assert ids("?created_before=2000-01-01T00:00:00Z") == []


@pytest.mark.parametrize(
    "query",
    [
        "?status=sleeping",
        "?ranked=maybe",
        "?bot=abc",
        "?bot=0",
        "?version=1e40",
        "?created_after=yesterday",
        "?created_after=0001-01-01T00:00:00%2B01:00",
        "?ruleset=chess",
    ],
)
def test_bad_filters_are_a_clear_400(anonymous, query) -> None:  # type: ignore[no-untyped-def]
    error = assert_error(anonymous.get(f"/api/matches/{query}"), 400, "invalid")
    assert error["fields"]


def test_an_invalid_cursor_is_a_404_in_the_error_shape(anonymous) -> None:  # type: ignore[no-untyped-def]
    assert_error(anonymous.get("/api/matches/?cursor=garbage"), 404, "not_found")


def test_match_detail_has_games_scores_ranks_and_failures(  # type: ignore[no-untyped-def]
    alice, bob, staff, anonymous, as_user, version_factory, play_match
) -> None:
    crashing = version_factory(bot__owner=alice, code=CRASHING_BOT)
    solid = version_factory(bot__owner=bob)
    match = play_match([crashing, solid], games=2)
    url = f"/api/matches/{match.pk}/"
    detail = anonymous.get(url).json()
    assert detail["status"] == "finished" and len(detail["game_logs"]) == 2
    games = Game.objects.filter(match=match).order_by("index")
    for shown, stored in zip(detail["game_logs"], games):
        assert (shown["scores"], shown["ranks"], shown["seats"]) == (stored.scores, stored.ranks, stored.seats)
        assert shown["replay_url"].endswith(f"/api/games/{stored.pk}/replay/")
    entrants = {entrant["version"]: entrant for entrant in detail["entrants"]}
    assert entrants[crashing.pk]["forfeits"] == 2 and entrants[solid.pk]["wins"] == 2
    failures = [failure for game in detail["game_logs"] for failure in game["failures"]]
    assert failures and all(f["kind"] == "exception" and f["version"] == crashing.pk for f in failures)
    assert all(f["stderr_tail"] is None for f in failures)  # anonymous
    for viewer, sees in [(alice, True), (staff, True), (bob, False)]:
        shown = as_user(viewer).get(url).json()["game_logs"][0]["failures"][0]["stderr_tail"]
        assert (shown is not None and "RuntimeError" in shown) is sees
    assert_error(anonymous.get("/api/matches/987654/"), 404, "not_found")


# --- Requesting matches -----------------------------------------------------------------------


def request(client, version, opponents, **extra):  # type: ignore[no-untyped-def]
    return client.post("/api/matches/", {"version": version, "opponents": opponents, "games": 2, **extra})


def test_an_owner_requests_an_unranked_match_against_chosen_opponents(  # type: ignore[no-untyped-def]
    alice, bob, as_user, version_factory, django_capture_on_commit_callbacks
) -> None:
    mine = version_factory(bot__owner=alice)
    theirs = version_factory(bot__owner=bob)
    retired = version_factory(bot__owner=bob, status="retired")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = request(as_user(alice), mine.pk, [theirs.pk, retired.pk], seed=42, ruleset="bga")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["ranked"], body["origin"], body["requested_by"]) == (
        "queued",
        False,
        "manual",
        "alice",
    )
    assert [e["version"] for e in body["entrants"]] == [mine.pk, theirs.pk, retired.pk]
    assert (body["seed"], body["ruleset"], body["num_players"]) == (42, "bga", 3)
    assert len(callbacks) == 1  # queued for a worker after commit


def test_a_match_for_someone_elses_version_is_refused(alice, bob, anonymous, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    theirs = version_factory(bot__owner=bob)
    assert_error(request(as_user(alice), theirs.pk, [theirs.pk]), 403, "permission_denied")
    assert_error(request(anonymous, theirs.pk, [theirs.pk]), 401)
    assert not Match.objects.exists()


def test_staff_may_request_any_match(staff, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    assert request(as_user(staff), version_factory().pk, [version_factory().pk]).status_code == 201


@pytest.mark.parametrize(
    ("payload", "status", "text"),
    [
        ({"opponents": []}, 400, "opponents"),
        ({"opponents": [1, 1, 1, 1, 1]}, 400, "opponents"),
        ({"games": 0}, 400, "games"),
        ({"games": 101}, 400, "games"),
        ({"ruleset": "chess"}, 400, "ruleset"),
        ({"seed": -1}, 400, "seed"),
        ({"version": "first"}, 400, "version"),
        ({"opponents": [987654]}, 404, "987654"),
        ({"opponents": "rejected"}, 400, "rejected"),
    ],
)
def test_bad_match_requests_change_nothing(alice, as_user, version_factory, payload, status, text) -> None:  # type: ignore[no-untyped-def]
    mine = version_factory(bot__owner=alice)
    rejected = version_factory(status="rejected")
    body = {"version": mine.pk, "opponents": [version_factory().pk], "games": 2} | payload
    if body["opponents"] == "rejected":
        body["opponents"] = [rejected.pk]
        text = "rejected; it cannot play"
    error = assert_error(as_user(alice).post("/api/matches/", body), status)
    assert text in error["message"]
    assert not Match.objects.exists()


@override_settings(API_MATCH_QUOTA_PENDING=2)
def test_the_quota_of_pending_matches(alice, staff, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    mine, other = version_factory(bot__owner=alice), version_factory()
    client = as_user(alice)
    for _ in range(2):
        assert request(client, mine.pk, [other.pk]).status_code == 201
    error = assert_error(request(client, mine.pk, [other.pk]), 429, "quota_exceeded")
    assert "limit is 2" in error["message"]
    assert Match.objects.count() == 2
    Match.objects.filter(requested_by=alice).update(status="finished")  # they ran: room again
    assert request(client, mine.pk, [other.pk]).status_code == 201
    assert request(as_user(staff), mine.pk, [other.pk]).status_code == 201  # staff are exempt


@override_settings(API_MATCH_QUOTA_DAILY_GAMES=10, API_MATCH_QUOTA_PENDING=100)
def test_the_quota_of_games_per_day(alice, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    mine, other = version_factory(bot__owner=alice), version_factory()
    client = as_user(alice)
    assert request(client, mine.pk, [other.pk], games=8).status_code == 201
    error = assert_error(request(client, mine.pk, [other.pk], games=3), 429, "quota_exceeded")
    assert "11 in 24 hours" in error["message"]
    assert request(client, mine.pk, [other.pk], games=2).status_code == 201
    assert Match.objects.count() == 2


def test_match_requests_are_throttled(alice, as_user, version_factory, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(settings.THROTTLE_RATES, "match_requests", "1/hour")
    mine, other = version_factory(bot__owner=alice), version_factory()
    client = as_user(alice)
    assert request(client, mine.pk, [other.pk]).status_code == 201
    assert_error(request(client, mine.pk, [other.pk]), 429, "throttled")
    assert Match.objects.count() == 1
    assert client.get("/api/matches/").status_code == 200


# --- Games, replays and verification ----------------------------------------------------------


def test_replays_download_and_verify(anonymous, version_factory, play_match) -> None:  # type: ignore[no-untyped-def]
    match = play_match([version_factory(), version_factory()], games=2)
    game = Game.objects.filter(match=match).order_by("index").first()
    assert game is not None
    response = anonymous.get(f"/api/games/{game.pk}/replay/")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert f"match-{match.pk}-game-0.json" in response["Content-Disposition"]
    document = response.json()
    signature = document.pop("signature")  # the site's word (tests/api/test_replay_signatures.py)
    assert document == game.replay_document() and verify_replay(document).ok and signature["algorithm"] == "Ed25519"
    verification = anonymous.get(f"/api/games/{game.pk}/verification/").json()
    assert verification["ok"] is True and verification["scores"] == game.scores
    listed = anonymous.get(f"/api/games/?match={match.pk}").json()["results"]
    assert [g["index"] for g in listed] == [0, 1]
    assert_error(anonymous.get("/api/games/999999/replay/"), 404, "not_found")


def test_verification_reports_a_tampered_replay(anonymous, version_factory, play_match) -> None:  # type: ignore[no-untyped-def]
    from tournaments.models import compress_replay

    match = play_match([version_factory(), version_factory()], games=2)
    game = Game.objects.filter(match=match).first()
    assert game is not None
    document = game.replay_document()
    document["scores"] = [score + 1 for score in document["scores"]]
    Game.objects.filter(pk=game.pk).update(replay=compress_replay(document))
    verification = anonymous.get(f"/api/games/{game.pk}/verification/").json()
    assert verification["ok"] is False and "recorded scores" in verification["message"]


def test_a_date_filter_with_an_offset_postgresql_cannot_hold_is_compared_in_utc(db) -> None:  # type: ignore[no-untyped-def]
    from rest_framework.test import APIClient

    response = APIClient().get("/api/matches/", {"created_after": "7172-06-06T10:21:43-18:06"})
    assert response.status_code == 200, response.content
    response = APIClient().get("/api/matches/", {"created_after": "2026-06-06T10:21:43-18:06"})
    assert response.status_code == 200, response.content


@override_settings(MATCH_TIME_LIMIT_SECONDS=1830, MATCH_SOFT_MARGIN_SECONDS=30)
def test_a_match_request_longer_than_a_match_may_last_is_a_clear_400(alice, as_user, version_factory) -> None:  # type: ignore[no-untyped-def]
    mine, other = version_factory(bot__owner=alice), version_factory()

    error = assert_error(request(as_user(alice), mine.pk, [other.pk], games=14), 400)

    assert "may take up to 1854 s" in error["message"]
    assert Match.objects.count() == 0
