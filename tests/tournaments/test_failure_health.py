"""Failure health: a version that fails in LADDER_MAX_CONSECUTIVE_FAILING_MATCHES ranked matches in
a row is taken off the ladder with its reason, stays active, and its owner (only) puts it back.
Sandboxed games of real tiny bots; a platform failure (no sandbox) never counts."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from bots.models import BotVersion
from bots.services import bot_version_ladder_restore, bot_versions_match_health_record
from lineit.sandbox import SandboxUnavailable
from lineit_platform.errors import Conflict, Forbidden
from tournaments.models import Match, MatchEntrant
from tournaments.selectors.versions import failure_counts, failure_health
from tournaments.services.ladder import ladder_tick
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule

pytestmark = pytest.mark.django_db

CRASHING_BOT = b"""def act(observation):
    raise RuntimeError("this bot fails every game")
"""


def play_ranked(*versions: BotVersion, origin: str = Match.Origin.LADDER, ranked: bool = True) -> Match:
    match = match_schedule(versions=list(versions), games=2, ranked=ranked, origin=origin)
    played = match_execute(match_id=match.pk, worker="test")
    assert played is not None and played.status == Match.Status.FINISHED
    return played


def fresh(version: BotVersion) -> BotVersion:
    return BotVersion.objects.select_related("bot").get(pk=version.pk)


@override_settings(LADDER_MAX_CONSECUTIVE_FAILING_MATCHES=3, LADDER_PENDING_TARGET=2, LADDER_TABLE_SIZES=[2])
def test_a_crashing_version_is_taken_off_after_three_failing_matches_and_the_ladder_passes_it_over(
    alice, version_factory
) -> None:  # type: ignore[no-untyped-def]
    crashing = version_factory(bot__owner=alice, code=CRASHING_BOT)
    good, other = version_factory(), version_factory()
    play_ranked(crashing, good)
    play_ranked(good, crashing)
    assert fresh(crashing).ladder_failing_matches == 2 and fresh(crashing).ladder_removed_at is None
    assert fresh(good).ladder_failing_matches == 0
    play_ranked(crashing, good, ranked=False, origin=Match.Origin.MANUAL)  # a test match does not count
    assert fresh(crashing).ladder_failing_matches == 2
    already_queued = match_schedule(versions=[crashing, other], games=2, ranked=True, origin=Match.Origin.LADDER)

    third = play_ranked(crashing, other)

    crashing = fresh(crashing)
    assert crashing.status == "active" and crashing.ladder_removed_at is not None and not crashing.on_ladder
    assert crashing.ladder_removed_match == third.pk
    assert "failed in 3 ranked matches in a row" in crashing.ladder_removed_reason
    assert f"match {third.pk}: exception in game 1" in crashing.ladder_removed_reason
    # a ranked match queued before still plays, and the ladder schedules it no more
    assert match_execute(match_id=already_queued.pk, worker="test").status == Match.Status.FINISHED  # type: ignore[union-attr]
    scheduled = ladder_tick(rng=random.Random(3))
    assert scheduled, "the two healthy versions still play"
    seated = set(MatchEntrant.objects.filter(match__in=scheduled).values_list("version_id", flat=True))
    assert seated == {good.pk, other.pk}
    # it still plays test matches
    play_ranked(crashing, good, ranked=False, origin=Match.Origin.MANUAL)

    health = failure_health([crashing.pk])
    assert health.by_kind == [("exception", health.failures)] and health.failures >= 12
    assert health.failing_matches == health.matches == 6  # 4 ranked, 2 test matches
    assert health.recent[0]["match_id"] > third.pk and health.recent[0]["decision"] >= 0
    assert failure_counts(version_ids=[crashing.pk, good.pk]) == {crashing.pk: {"exception": health.failures}}


@override_settings(LADDER_MAX_CONSECUTIVE_FAILING_MATCHES=2)
def test_the_owner_puts_it_back_and_the_run_starts_again(alice, bob, staff, version_factory) -> None:  # type: ignore[no-untyped-def]
    crashing = version_factory(bot__owner=alice, code=CRASHING_BOT)
    good = version_factory()
    play_ranked(crashing, good)
    play_ranked(crashing, good)
    crashing = fresh(crashing)
    assert crashing.ladder_removed_at is not None
    with pytest.raises(Forbidden):
        bot_version_ladder_restore(version=crashing, restored_by=bob)
    assert fresh(crashing).ladder_removed_at is not None  # nothing changed

    restored = bot_version_ladder_restore(version=crashing, restored_by=alice)
    assert restored.ladder_removed_at is None and restored.ladder_removed_reason == ""
    assert restored.ladder_failing_matches == 0 and restored.on_ladder
    play_ranked(crashing, good)
    assert fresh(crashing).ladder_failing_matches == 1 and fresh(crashing).ladder_removed_at is None
    play_ranked(crashing, good)
    assert fresh(crashing).ladder_removed_at is not None  # two more in a row: off again
    assert bot_version_ladder_restore(version=fresh(crashing), restored_by=staff).on_ladder


def test_a_clean_match_ends_the_run_in_one_query(version_factory) -> None:  # type: ignore[no-untyped-def]
    failing, clean = version_factory(ladder_failing_matches=4), version_factory(ladder_failing_matches=2)
    steady = version_factory()
    with CaptureQueriesContext(connection) as captured:
        assert bot_versions_match_health_record(match_id=1, failing={}, clean={failing.pk, steady.pk}) == []
    assert len(captured) == 1
    assert fresh(failing).ladder_failing_matches == 0 and fresh(steady).ladder_failing_matches == 0
    removed = bot_versions_match_health_record(match_id=7, failing={clean.pk: "timeout in game 3"}, clean=set())
    assert fresh(clean).ladder_failing_matches == 3 and removed == []  # the default limit is 5


def test_restoring_a_retired_version_is_refused(alice, version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice, status="retired", ladder_removed_reason="x")
    BotVersion.objects.filter(pk=version.pk).update(ladder_removed_at=version.created_at)
    with pytest.raises(Conflict, match="only an active version"):
        bot_version_ladder_restore(version=fresh(version), restored_by=alice)
    assert fresh(version).ladder_removed_at is not None


@override_settings(LADDER_MAX_CONSECUTIVE_FAILING_MATCHES=1)
def test_a_platform_failure_never_counts_against_a_bot(monkeypatch, version_factory) -> None:  # type: ignore[no-untyped-def]
    crashing = version_factory(code=CRASHING_BOT)
    match = match_schedule(versions=[crashing, version_factory()], games=2, ranked=True, origin=Match.Origin.LADDER)
    monkeypatch.setenv("SANDBOX_TIER", "no-such-tier")  # no sandbox: the platform's fault
    for _ in range(match.max_attempts):
        with pytest.raises(SandboxUnavailable):
            match_execute(match_id=match.pk, worker="test")
    assert Match.objects.get(pk=match.pk).status == Match.Status.FAILED
    crashing = fresh(crashing)
    assert crashing.ladder_failing_matches == 0 and crashing.ladder_removed_at is None
    assert failure_health([crashing.pk]).failures == 0
