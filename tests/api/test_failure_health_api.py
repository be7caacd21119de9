"""Failure health and placement in the API: a version's ladder state and placement, the failures
of a version or a bot by kind, and putting a version back on the ladder (its owner or staff only);
lists of versions cost the same queries for one row as for thirty."""

from __future__ import annotations

import pytest
from api_helpers import assert_error, client_for
from django.conf import settings
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots.models import BotVersion
from lineit.engine import RULES_VERSION
from tournaments.models import Rating
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule

pytestmark = pytest.mark.django_db

CRASHING_BOT = b"""def act(observation):
    raise RuntimeError("alice's secret")
"""


@override_settings(LADDER_MAX_CONSECUTIVE_FAILING_MATCHES=1)
def test_failures_by_kind_the_ladder_state_and_the_owners_restore(alice, bob, staff, version_factory) -> None:  # type: ignore[no-untyped-def]
    crashing = version_factory(bot__owner=alice, code=CRASHING_BOT)
    good = version_factory(bot__owner=bob)
    match = match_schedule(versions=[crashing, good], games=2, ranked=True, origin="ladder")
    match_execute(match_id=match.pk, worker="test")  # in the sandbox

    anyone = client_for(None)
    version = anyone.get(f"/api/versions/{crashing.pk}/").json()
    assert version["ladder"]["on_ladder"] is False and version["ladder"]["removed_match"] == match.pk
    assert "failed in 1 ranked matches in a row" in version["ladder"]["removed_reason"]
    assert version["ladder"]["failing_matches"] == 1 and version["ladder"]["failing_matches_limit"] == 1
    assert version["placement"] == {"state": "none", "games": None, "target": settings.PLACEMENT_GAMES}
    health = anyone.get(f"/api/versions/{crashing.pk}/failure-health/").json()
    assert health["by_kind"] == {"exception": 2} and health["failures"] == 2 and health["days"] == 30
    assert health["matches"] == health["failing_matches"] == 1
    assert [failure["match"] for failure in health["recent"]] == [match.pk, match.pk]
    assert "alice's secret" not in str(health)
    assert anyone.get(f"/api/bots/{crashing.bot_id}/failure-health/").json()["by_kind"] == {"exception": 2}
    assert anyone.get(f"/api/bots/{good.bot_id}/failure-health/").json()["failures"] == 0

    url = f"/api/versions/{crashing.pk}/ladder-restore/"
    assert_error(anyone.post(url), 401)
    assert_error(client_for(bob).post(url), 403)
    assert_error(client_for(alice).post("/api/versions/999999/ladder-restore/"), 404)
    assert BotVersion.objects.get(pk=crashing.pk).ladder_removed_at is not None
    restored = client_for(alice).post(url)
    assert restored.status_code == 200, restored.content
    assert restored.json()["ladder"]["on_ladder"] is True and restored.json()["ladder"]["failing_matches"] == 0
    assert client_for(staff).post(url).status_code == 200  # on the ladder already: as it is

    BotVersion.objects.filter(pk=crashing.pk).update(status="retired", ladder_removed_at=timezone.now())
    assert_error(client_for(alice).post(url), 409, "conflict")


@override_settings(PLACEMENT_GAMES=30, LADDER_RULESETS=["standard"])
def test_the_placement_progress_in_lists_costs_the_same_queries(version_factory) -> None:  # type: ignore[no-untyped-def]
    def placing(games: int) -> BotVersion:
        version = version_factory(placement_started_at=timezone.now())
        Rating.objects.create(
            version=version, ruleset="standard", rules_version=RULES_VERSION, rating=1500, games=games
        )
        return version

    first = placing(12)
    client = client_for(None)
    assert client.get(f"/api/versions/{first.pk}/").json()["placement"] == {
        "state": "playing",
        "games": 12,
        "target": 30,
        "half_width": None,  # no game of its own recorded, no whole-history fit: not known yet
    }

    def listed() -> tuple[int, list[dict]]:  # type: ignore[type-arg]
        with CaptureQueriesContext(connection) as captured:
            rows = client.get("/api/versions/?page_size=30").json()["results"]
        return len(captured), rows

    few, rows = listed()
    assert rows[0]["placement"]["games"] == 12
    for games in range(29):
        placing(games)
    many, rows = listed()
    assert many == few and len(rows) == 30
    assert sorted(row["placement"]["games"] for row in rows) == sorted([12, *range(29)])
