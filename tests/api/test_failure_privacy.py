"""A failure's message is its bot owner's, like its stderr tail: others see the kind and the
decision, in the match detail (the fast read and the cache), the games, the replays and the page."""

from __future__ import annotations

from typing import Any

import pytest
from api_helpers import CRASHING_BOT, play
from django.urls import reverse

from tournaments.models import Game, GameFailure, compress_replay, decompress_replay

pytestmark = pytest.mark.django_db

ILLEGAL_BOT = b"""def act(observation):
    return "take 999 line, bob's secret move"
"""
ALICE_SECRET = "alice's secret strategy failed"
BOB_SECRET = "bob's secret move"


@pytest.fixture
def match(alice: Any, bob: Any, version_factory: Any) -> Any:
    """alice's bot raises, bob's returns an illegal action: each failure quotes its bot."""
    crashing = version_factory(bot__owner=alice, code=CRASHING_BOT)
    illegal = version_factory(bot__owner=bob, code=ILLEGAL_BOT)
    played = play([crashing, illegal], games=2)
    kinds = set(GameFailure.objects.filter(match=played).values_list("kind", flat=True))
    assert kinds == {"exception", "illegal_move"}
    return played


def failures_seen(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [failure for game in data["game_logs"] for failure in game["failures"]]


def secrets_in(failures: list[dict[str, Any]]) -> set[str]:
    text = " ".join(str(failure.get("message")) + str(failure.get("stderr_tail")) for failure in failures)
    return {secret for secret in (ALICE_SECRET, BOB_SECRET) if secret in text}


@pytest.mark.parametrize(
    ("who", "sees"),
    [("anonymous", set()), ("alice", {ALICE_SECRET}), ("bob", {BOB_SECRET}), ("staff", {ALICE_SECRET, BOB_SECRET})],
)
def test_each_viewer_reads_the_messages_of_their_own_bots_only(match, as_user, who, sees, request) -> None:  # type: ignore[no-untyped-def]
    viewer = None if who == "anonymous" else request.getfixturevalue(who)
    client = as_user(viewer)
    as_anonymous = as_user(None).get(f"/api/matches/{match.pk}/")  # fills the cache first: it must not leak
    assert secrets_in(failures_seen(as_anonymous.json())) == set()

    detail = client.get(f"/api/matches/{match.pk}/").json()
    games = client.get(f"/api/games/?match={match.pk}").json()["results"]
    one_game = client.get(f"/api/games/{games[0]['id']}/").json()

    assert secrets_in(failures_seen(detail)) == sees
    assert secrets_in([failure for game in games for failure in game["failures"]]) == sees
    assert detail["game_logs"] == games and one_game == games[0]  # the fast read and the serializer agree
    for failure in failures_seen(detail):
        assert failure["kind"] in ("exception", "illegal_move") and isinstance(failure["decision"], int)
        mine = failure["message"] is not None
        assert (failure["stderr_tail"] is not None) is mine  # the message and the stderr go together


def test_replays_hold_the_kind_and_the_decision_of_a_failure_and_nothing_it_said(match, as_user, staff) -> None:  # type: ignore[no-untyped-def]
    for game in Game.objects.filter(match=match):
        stored = decompress_replay(game.replay)
        for document in (
            stored,
            as_user(staff).get(f"/api/games/{game.pk}/replay/").json(),
            as_user(None).get(f"/api/games/{game.pk}/replay/").json(),
            as_user(None).get(reverse("replay-json", args=[game.pk])).json(),
        ):
            failures = document["meta"]["failures"]
            assert failures and all(set(failure) == {"kind", "seat", "game", "decision"} for failure in failures)
        verification = as_user(None).get(f"/api/games/{game.pk}/verification/").json()
        assert verification["ok"] is True


def test_a_replay_stored_with_messages_is_served_without_them_and_still_verifies(match, as_user, alice) -> None:  # type: ignore[no-untyped-def]
    """Replays recorded before the message became the owner's held it in meta.failures."""
    game = Game.objects.filter(match=match).first()
    document = decompress_replay(game.replay)
    for failure in document["meta"]["failures"]:
        failure["message"] = ALICE_SECRET
        failure["stderr_tail"] = ALICE_SECRET
    Game.objects.filter(pk=game.pk).update(replay=compress_replay(document))

    for url in (f"/api/games/{game.pk}/replay/", reverse("replay-json", args=[game.pk])):
        for viewer in (None, alice):
            response = as_user(viewer).get(url)
            assert response.status_code == 200 and ALICE_SECRET not in response.content.decode()
    assert as_user(None).get(f"/api/games/{game.pk}/verification/").json()["ok"] is True
    page = as_user(None).get(reverse("replay-viewer", args=[game.pk]))
    assert page.status_code == 200 and ALICE_SECRET not in page.content.decode()


def test_the_match_page_shows_each_owner_their_own_messages(match, client, alice, bob) -> None:  # type: ignore[no-untyped-def]
    page = reverse("match-detail", args=[match.pk])
    for user, sees in ((None, set()), (alice, {ALICE_SECRET}), (bob, {BOB_SECRET})):
        client.logout()
        if user is not None:
            client.force_login(user)
        html = client.get(page).content.decode().replace("&#x27;", "'")
        assert {secret for secret in (ALICE_SECRET, BOB_SECRET) if secret in html} == sees
        assert "The bot returned an action that is not legal." in html or user is bob
        assert "The bot raised an exception." in html or user is alice
