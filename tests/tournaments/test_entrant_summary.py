"""A match's row holds its entrants' summary (their versions and totals, in index order), written
by the services that change them; the migration that brought the column fills it for the matches
recorded before, and goes back without a trace."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tournaments.models import Match
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.results import entrant_summary
from tournaments.services.matches.states import match_schedule

BEFORE, SUMMARY = ("tournaments", "0004_rating_leaderboard_index"), ("tournaments", "0005_match_entrant_summary")


def summary_of(match: Match) -> list[dict[str, Any]]:
    return entrant_summary(match.entrants.all())


@pytest.mark.django_db
def test_the_summary_follows_the_entrants_from_scheduling_to_the_result(version_factory) -> None:  # type: ignore[no-untyped-def]
    first, second = version_factory(), version_factory()
    match = match_schedule(versions=[second, first, second], games=3, seed=4)
    scheduled = Match.objects.get(pk=match.pk).entrant_summary
    assert scheduled == summary_of(match)
    assert [(e["index"], e["version"], e["total_score"], e["wins"]) for e in scheduled] == [
        (0, second.pk, None, None),
        (1, first.pk, None, None),
        (2, second.pk, None, None),
    ]
    match_execute(match_id=match.pk, worker="test")
    recorded = Match.objects.get(pk=match.pk).entrant_summary
    assert recorded == summary_of(match)
    totals = {entrant.index: entrant for entrant in match.entrants.all()}
    assert [entry["total_score"] for entry in recorded] == [totals[index].total_score for index in range(3)]
    assert all(isinstance(entry["mean_rank"], float) and entry["forfeits"] == 0 for entry in recorded)


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_summary_of_earlier_matches_and_goes_back(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(3)]
    played = match_schedule(versions=versions[:2], games=2, seed=1)
    match_execute(match_id=played.pk, worker="test")
    queued = match_schedule(versions=[versions[2], versions[0], versions[2]], games=2, seed=2)
    wanted = {match.pk: summary_of(match) for match in (played, queued)}

    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])  # back: the column goes
    with connection.cursor() as cursor:
        columns = [
            column.name for column in connection.introspection.get_table_description(cursor, "tournaments_match")
        ]
    assert "entrant_summary" not in columns
    old = executor.loader.project_state([BEFORE]).apps.get_model("tournaments", "Match")
    bare = old.objects.create(ruleset="standard", rules_version="1.0", num_players=2, games=1, seed=3)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([SUMMARY])  # forward: filled from the entrants
    then = executor.loader.project_state([SUMMARY]).apps.get_model("tournaments", "Match")
    try:
        assert {match.pk: match.entrant_summary for match in then.objects.filter(pk__in=wanted)} == wanted
        assert then.objects.get(pk=bare.pk).entrant_summary == []  # a match without entrants
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())  # the later migrations, for the next tests
