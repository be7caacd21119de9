"""The rating writer: canonical order, unranked matches, and a recompute that reproduces it."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command
from tournament_helpers import live_table, play

from tournaments.models import Match, Rating, RatingEvent
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.results import match_record_result
from tournaments.services.matches.states import match_schedule
from tournaments.services.ratings_recompute import ratings_recompute

pytestmark = pytest.mark.django_db


def test_unranked_matches_never_change_ratings(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=4)
    match_execute(match_id=match.pk, worker="test")
    assert not Rating.objects.exists() and not RatingEvent.objects.exists()


def test_results_are_applied_in_match_order_whatever_order_they_finish_in(version_factory) -> None:  # type: ignore[no-untyped-def]
    a, b, c = version_factory(), version_factory(), version_factory()
    first = match_schedule(versions=[a, b], games=2, ranked=True, seed=1)
    second = match_schedule(versions=[b, c], games=2, ranked=True, seed=2)
    first_result, second_result = play(first), play(second)
    match_record_result(match_id=second.pk, attempt=1, result=second_result)
    assert not Rating.objects.exists()  # waits for the first match
    match_record_result(match_id=first.pk, attempt=1, result=first_result)
    assert Rating.objects.count() == 3
    keys = list(RatingEvent.objects.order_by("id").values_list("key", flat=True))
    assert keys[0].startswith(f"{first.pk}:0:") and keys[-1].startswith(f"{second.pk}:1:")
    assert live_table()[b.pk][1] == 4
    assert ratings_recompute().mismatches == []


def test_a_rating_records_when_it_last_changed(version_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = version_factory(), version_factory()
    first = match_schedule(versions=[a, b], games=2, ranked=True, seed=1)
    match_record_result(match_id=first.pk, attempt=1, result=play(first))
    created = Rating.objects.get(version=a).updated_at

    second = match_schedule(versions=[a, b], games=2, ranked=True, seed=2)
    match_record_result(match_id=second.pk, attempt=1, result=play(second))

    assert Rating.objects.get(version=a).updated_at > created


def test_a_failed_or_cancelled_match_is_passed_over(version_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = version_factory(), version_factory()
    blocked = match_schedule(versions=[a, b], games=2, ranked=True)
    later = match_schedule(versions=[a, b], games=2, ranked=True)
    match_record_result(match_id=later.pk, attempt=1, result=play(later))
    assert not Rating.objects.exists()
    from tournaments.services.matches.states import match_cancel

    match_cancel(match=blocked)
    assert live_table()[a.pk][1] == 2


def test_recompute_reproduces_the_live_table_exactly(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(5)]
    rng = random.Random(3)
    matches = [
        match_schedule(versions=rng.sample(versions, rng.randint(2, 4)), games=3, ranked=True, seed=i) for i in range(6)
    ]
    results = [(match, play(match)) for match in matches]
    rng.shuffle(results)
    for match, result in results:
        match_record_result(match_id=match.pk, attempt=1, result=result)
    assert Match.objects.filter(rated_at__isnull=True).count() == 0
    outcome = ratings_recompute()
    assert outcome.mismatches == []
    assert {key[0]: value for key, value in outcome.table.ratings.items()} == {k: v[0] for k, v in live_table().items()}
    call_command("recompute_ratings")  # raises CommandError on any difference


def test_recompute_repairs_a_tampered_table(version_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = version_factory(), version_factory()
    match_execute(match_id=match_schedule(versions=[a, b], games=2, ranked=True).pk, worker="t")
    before = live_table()
    Rating.objects.filter(version=a).update(rating=2000.0)
    assert ratings_recompute().mismatches
    ratings_recompute(write=True)
    assert live_table() == before
    assert ratings_recompute().mismatches == []


def test_a_match_pending_too_long_no_longer_holds_back_the_ones_after_it(version_factory, settings) -> None:  # type: ignore[no-untyped-def]
    from datetime import timedelta

    from django.utils import timezone

    settings.RATINGS_WAIT_SECONDS = 600
    a, b, c = version_factory(), version_factory(), version_factory()
    slow = match_schedule(versions=[a, b], games=2, ranked=True, seed=1)
    later = match_schedule(versions=[b, c], games=2, ranked=True, seed=2)
    slow_result = play(slow)  # claimed: running
    match_record_result(match_id=later.pk, attempt=1, result=play(later))
    assert not Rating.objects.exists()  # the slow match is waited for...

    Match.objects.filter(pk=slow.pk).update(created_at=timezone.now() - timedelta(seconds=601))
    newest = match_schedule(versions=[a, c], games=2, ranked=True, seed=3)  # pending, but recent
    from tournaments.services.ratings import ratings_apply_pending

    assert ratings_apply_pending() == 1  # ...for RATINGS_WAIT_SECONDS, no longer
    assert set(RatingEvent.objects.values_list("match_id", flat=True)) == {later.pk}
    assert Match.objects.get(pk=slow.pk).rated_at is None

    match_record_result(match_id=slow.pk, attempt=1, result=slow_result)  # it ends: rated after `later`
    order = dict(Match.objects.filter(rating_order__isnull=False).values_list("pk", "rating_order"))
    assert order == {later.pk: 1, slow.pk: 2}
    assert Match.objects.get(pk=newest.pk).rated_at is None  # still waited for
    assert live_table()[b.pk][1] == 4
    assert ratings_recompute().mismatches == []  # the recompute folds them in the order they were applied


def test_the_recompute_follows_the_order_the_matches_were_applied_in(version_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = version_factory(), version_factory()
    first = match_schedule(versions=[a, b], games=2, ranked=True, seed=1)
    second = match_schedule(versions=[a, b], games=2, ranked=True, seed=2)
    for match in (first, second):
        match_record_result(match_id=match.pk, attempt=1, result=play(match))
    assert ratings_recompute().mismatches == []
    # had the second been applied first, the same events would not reproduce
    Match.objects.filter(pk=first.pk).update(rating_order=None)
    Match.objects.filter(pk=second.pk).update(rating_order=1)
    Match.objects.filter(pk=first.pk).update(rating_order=2)
    assert ratings_recompute().mismatches != []


@pytest.mark.django_db(transaction=True)  # the columns change: no rows of this test's own may be left unchecked
def test_the_migration_gives_the_matches_rated_before_their_place_in_id_order(version_factory) -> None:  # type: ignore[no-untyped-def]
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, ordered = ("tournaments", "0006_match_failure_count"), ("tournaments", "0007_match_rating_order")
    a, b = version_factory(), version_factory()
    rated = [match_schedule(versions=[a, b], games=1, ranked=True, seed=seed) for seed in (1, 2, 3)]
    for match in rated:
        match_record_result(match_id=match.pk, attempt=1, result=play(match))
    unranked = match_schedule(versions=[a, b], games=1, seed=4)
    match_execute(match_id=unranked.pk, worker="test")

    executor = MigrationExecutor(connection)
    executor.migrate([before])
    try:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate([ordered])
        then = executor.loader.project_state([ordered]).apps.get_model("tournaments", "Match")
        places = dict(then.objects.values_list("pk", "rating_order"))
        assert places == {rated[0].pk: 1, rated[1].pk: 2, rated[2].pk: 3, unranked.pk: None}
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
