"""A match's row counts the failures its games recorded, written with them; its detail reads
the failures only when there are some, and shows the same either way. The migration that brought
the column counts the failures of the matches recorded before."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

from tournaments.models import GameFailure, Match
from tournaments.selectors.matches import match_detail
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule

BEFORE, COUNTED = ("tournaments", "0005_match_entrant_summary"), ("tournaments", "0006_match_failure_count")

CRASHING_BOT = b"""def act(observation):
    raise RuntimeError("boom")
"""


def nobody(owner: int) -> bool:
    return False


def detail_queries(match: Match) -> tuple[list[list[dict]], list[str]]:  # type: ignore[type-arg]
    with CaptureQueriesContext(connection) as captured:
        detail = match_detail(match.pk, reads_text_of=nobody)
    assert detail is not None
    return [game["failures"] for game in detail.match["game_logs"]], [query["sql"] for query in captured]


@pytest.mark.django_db
def test_the_count_is_written_with_the_failures_and_the_detail_reads_them_only_then(version_factory) -> None:  # type: ignore[no-untyped-def]
    crashing = version_factory(code=CRASHING_BOT)
    failing = match_schedule(versions=[crashing, version_factory()], games=2, seed=1)
    clean = match_schedule(versions=[version_factory(), version_factory()], games=2, seed=2)
    assert Match.objects.get(pk=failing.pk).failure_count == 0  # nothing recorded yet
    for match in (failing, clean):
        match_execute(match_id=match.pk, worker="test")

    recorded = GameFailure.objects.filter(match=failing).count()
    assert recorded == 2 and Match.objects.get(pk=failing.pk).failure_count == recorded
    assert Match.objects.get(pk=clean.pk).failure_count == 0

    shown, queries = detail_queries(failing)
    assert [len(failures) for failures in shown] == [1, 1] and shown[0][0]["kind"] == "exception"
    assert any("tournaments_gamefailure" in sql for sql in queries)
    shown, queries = detail_queries(clean)
    assert shown == [[], []]
    assert not any("tournaments_gamefailure" in sql for sql in queries)


@pytest.mark.django_db(transaction=True)
def test_the_migration_counts_the_failures_of_earlier_matches(version_factory) -> None:  # type: ignore[no-untyped-def]
    crashing = version_factory(code=CRASHING_BOT)
    failing = match_schedule(versions=[crashing, version_factory(), crashing], games=3, seed=1)
    clean = match_schedule(versions=[version_factory(), version_factory()], games=1, seed=2)
    for match in (failing, clean):
        match_execute(match_id=match.pk, worker="test")
    wanted = {failing.pk: GameFailure.objects.filter(match=failing).count(), clean.pk: 0}
    assert wanted[failing.pk] >= 3

    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])  # back: the column goes
    try:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate([COUNTED])  # forward: counted from the failures
        then = executor.loader.project_state([COUNTED]).apps.get_model("tournaments", "Match")
        assert dict(then.objects.filter(pk__in=wanted).values_list("pk", "failure_count")) == wanted
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
