"""Helpers shared by the API tests (imported by name: the tests folders are not packages)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots.code_cache import version_source
from bots.models import BotVersion
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from tournaments.models import Match
from tournaments.services.matches.results import match_record_result
from tournaments.services.matches.states import match_claim, match_schedule, match_spec

CRASHING_BOT = b"""def act(observation):
    raise RuntimeError("alice's secret strategy failed")
"""


def client_for(user: Any | None) -> APIClient:
    """A client that signs in the way scripts do: with the user's token in a header."""
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def assert_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """The response is the one error shape with this status (and code); returns its body."""
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"} and body["error"]["status"] == status
    assert body["error"]["message"] and isinstance(body["error"]["fields"], dict)
    if code is not None:
        assert body["error"]["code"] == code
    error: dict[str, Any] = body["error"]
    return error


def play(
    versions: Sequence[BotVersion], *, games: int = 2, ranked: bool = False, seed: int = 7, requested_by: Any = None
) -> Match:
    """Schedule a match, play it in this process and record its result through the services."""
    match = match_schedule(versions=versions, games=games, ranked=ranked, seed=seed, requested_by=requested_by)
    claimed = match_claim(match_id=match.pk, worker="api-tests")
    assert claimed is not None
    result = run_match(match_spec(claimed), [InProcessPlayer(version_source(version)) for version in versions])
    assert match_record_result(match_id=match.pk, attempt=claimed.attempts, result=result)
    return Match.objects.get(pk=match.pk)


def play_queued(**filters: Any) -> None:
    """Play every queued match matching ``filters`` in this process and record it."""
    for match in Match.objects.filter(status=Match.Status.QUEUED, **filters).order_by("id"):
        claimed = match_claim(match_id=match.pk, worker="api-tests")
        assert claimed is not None
        versions = [e.version for e in claimed.entrants.select_related("version__bot").order_by("index")]
        result = run_match(match_spec(claimed), [InProcessPlayer(version_source(version)) for version in versions])
        assert match_record_result(match_id=match.pk, attempt=claimed.attempts, result=result)
