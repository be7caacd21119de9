"""The match state machine on PostgreSQL, with matches played in the real sandbox."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

import pytest
from django.utils import timezone

from bots.code_cache import version_source
from bots.models import reads_text_of
from bots.runner import sandbox_match_run
from lineit.botkit.limits import Limits
from lineit_platform.errors import ApplicationError, Conflict
from tournaments.models import Game, GameFailure, Match, Rating, RatingEvent
from tournaments.selectors.matches import match_detail
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.results import match_record_result
from tournaments.services.matches.states import (
    match_cancel,
    match_claim,
    match_release,
    match_requeue,
    match_schedule,
    match_spec,
)
from tournaments.services.matches.sweeper import matches_sweep

pytestmark = pytest.mark.django_db

CRASHING_BOT = b"""import sys

def act(observation):
    print("only alice may read this", file=sys.stderr)
    raise RuntimeError("boom")
"""


def test_schedule_queues_the_match_after_commit(version_factory, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory(), version_factory()]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        match = match_schedule(versions=versions, games=6, seed=3, ranked=True)
    assert (match.status, match.num_players, match.attempts) == ("queued", 3, 0)
    assert [e.version_id for e in match.entrants.order_by("index")] == [v.pk for v in versions]
    assert match.limits == Limits().to_dict() and match.rules_version
    assert len(callbacks) == 1


@pytest.mark.parametrize(
    ("seats", "kwargs", "message"),
    [
        (1, {}, "2 to 5 seats"),
        (6, {}, "2 to 5 seats"),
        (2, {"games": 0}, "games must be"),
        (2, {"ruleset": "chess"}, "unknown ruleset"),
        (2, {"limits": {"memory_mb": 1}}, "memory_mb"),
        (2, {"limits": {"colour": "red"}}, "unknown limits"),
    ],
)
def test_bad_requests_are_refused_and_change_nothing(version_factory, seats, kwargs, message) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(seats)]
    with pytest.raises(ApplicationError, match=message):
        match_schedule(versions=versions, **({"games": 2} | kwargs))
    assert not Match.objects.exists()


def test_a_ranked_match_needs_distinct_active_versions(version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory()
    with pytest.raises(ApplicationError, match="twice"):
        match_schedule(versions=[version, version], games=2, ranked=True)
    with pytest.raises(ApplicationError, match="retired"):
        match_schedule(versions=[version, version_factory(status="retired")], games=2, ranked=True)
    # A test match may seat one version twice, and a retired one.
    match_schedule(versions=[version, version_factory(status="retired")], games=2)


def test_only_one_worker_can_claim_a_match(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=2)
    first = match_claim(match_id=match.pk, worker="w1")
    assert first is not None and (first.status, first.attempts, first.worker) == ("running", 1, "w1")
    assert first.deadline > timezone.now()
    assert match_claim(match_id=match.pk, worker="w2") is None


def test_a_match_is_played_and_recorded(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=4, seed=11)
    match = match_execute(match_id=match.pk, worker="test")
    assert match is not None and match.status == "finished" and match.sandbox_tier
    games = list(Game.objects.filter(match=match).order_by("index"))
    assert [g.index for g in games] == [0, 1, 2, 3]
    assert [g.deal for g in games] == [0, 0, 1, 1]  # duplicate deals: each deck twice
    document = games[0].replay_document()
    assert document["format"] == "lineit-replay" and document["scores"] == games[0].scores
    entrants = list(match.entrants.order_by("index"))
    assert sum(e.total_score for e in entrants) == sum(sum(g.scores) for g in games)
    assert not Rating.objects.exists()  # unranked


def test_recording_twice_counts_once(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    match = match_schedule(versions=versions, games=2, ranked=True, seed=5)
    claimed = match_claim(match_id=match.pk, worker="w")
    assert claimed is not None
    result = sandbox_match_run(spec=match_spec(claimed), sources=[version_source(v) for v in versions])
    assert match_record_result(match_id=match.pk, attempt=1, result=result) is True
    assert match_record_result(match_id=match.pk, attempt=1, result=result) is False
    assert Game.objects.filter(match=match).count() == 2
    assert RatingEvent.objects.count() == 4  # 2 games x 2 players, once


def test_a_stale_attempt_cannot_record(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    match = match_schedule(versions=versions, games=2)
    claimed = match_claim(match_id=match.pk, worker="slow")
    assert claimed is not None
    result = sandbox_match_run(spec=match_spec(claimed), sources=[version_source(v) for v in versions])
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert match_claim(match_id=match.pk, worker="fast") is not None  # the lease ran out
    assert match_record_result(match_id=match.pk, attempt=1, result=result) is False
    assert match_record_result(match_id=match.pk, attempt=2, result=result) is True


def test_failures_are_recorded_with_stderr_for_the_owner_only(alice, bob, staff, version_factory) -> None:  # type: ignore[no-untyped-def]
    crashing = version_factory(bot__owner=alice, code=CRASHING_BOT)
    match = match_schedule(versions=[crashing, version_factory(bot__owner=bob)], games=2)
    match_execute(match_id=match.pk, worker="test")
    failures = list(GameFailure.objects.filter(match=match))
    assert failures and all(f.version_id == crashing.pk and f.kind == "exception" for f in failures)
    for viewer, reads in ((alice, True), (staff, True), (bob, False), (None, False)):
        detail = match_detail(match.pk, reads_text_of=partial(reads_text_of, viewer))
        assert detail is not None and detail.failing_owners == {alice.pk}
        shown = detail.match["game_logs"][0]["failures"][0]
        assert shown["kind"] == "exception" and shown["seat"] == failures[0].seat
        assert ("only alice may read this" in (shown["stderr_tail"] or "")) is reads
        assert (shown["message"] is not None) is reads
    crashing_entry = match.entrants.get(version=crashing)
    assert crashing_entry.forfeits == 2 and crashing_entry.mean_rank == 2


def test_a_released_match_goes_back_to_the_queue_until_out_of_attempts(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=2)
    for attempt in range(1, match.max_attempts + 1):
        assert match_claim(match_id=match.pk, worker="w") is not None
        released = match_release(match_id=match.pk, attempt=attempt, error="PlatformFailure: no sandbox")
        assert released is not None
    assert released.status == "failed" and "after 3 attempts" in released.error
    assert match_claim(match_id=match.pk, worker="w") is None


def test_the_sweeper_requeues_a_match_whose_lease_ran_out(version_factory, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=2)
    match_claim(match_id=match.pk, worker="dead-worker")
    assert matches_sweep() == {"requeued": 0, "failed": 0, "resent": 0, "chunks_resent": 0, "validations_resent": 0}
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        counts = matches_sweep(now=timezone.now() + timedelta(hours=1))
    assert counts["requeued"] == 1 and len(callbacks) == 1
    match.refresh_from_db()
    assert match.status == "queued" and "dead-worker" in match.error


def test_the_sweeper_fails_a_match_out_of_attempts(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=2)
    Match.objects.filter(pk=match.pk).update(attempts=match.max_attempts, status="running", deadline=timezone.now())
    assert matches_sweep(now=timezone.now() + timedelta(seconds=1))["failed"] == 1
    assert Match.objects.get(pk=match.pk).status == "failed"


def test_cancel_and_requeue(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=2, seed=9)
    match = match_cancel(match=match)
    assert match.status == "cancelled"
    with pytest.raises(Conflict):
        match_cancel(match=match)
    copy = match_requeue(match=match)
    assert copy.pk != match.pk and copy.status == "queued" and copy.seed == 9
    running = match_schedule(versions=[version_factory(), version_factory()], games=2)
    match_claim(match_id=running.pk, worker="w")
    assert match_requeue(match=running).status == "queued"
