"""A round is paired with the tournament's row unlocked: another connection can lock and update
the row while the pairing runs, and a tournament advanced by someone else meanwhile is not
paired twice (the slower advance reads it again and finds its work done)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction
from tournament_helpers import play_in_process, soon

from lineit import formats
from tournaments.models import Match, Tournament
from tournaments.services.tournaments.creation import tournament_create
from tournaments.services.tournaments.running import tournament_advance, tournament_start

pytestmark = pytest.mark.django_db(transaction=True)  # the other connection sees committed rows


def in_another_connection(work: Callable[[], Any]) -> Any:
    """Run ``work`` in a thread, which has a database connection of its own; its result, or
    the exception it raised."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(work())
        except Exception as error:  # handed to the test, which asserts on it
            outcome.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    if thread.is_alive():
        raise AssertionError("the other connection still waits for the tournament's row after 30 s")
    return outcome[0]


def lock_and_touch(tournament_id: int) -> str:
    with transaction.atomic():
        row = Tournament.objects.select_for_update(nowait=True).get(pk=tournament_id)  # fails if locked
        Tournament.objects.filter(pk=row.pk).update(note="touched while pairing")
    return "locked and updated"


def swiss_after_round_one(version_factory: Any) -> Tournament:
    versions = [version_factory() for _ in range(6)]
    tournament = tournament_create(
        versions=versions, name="swiss", format="swiss", starts_at=soon(), games_per_pairing=1, options={"rounds": 2}
    )
    tournament_start(tournament_id=tournament.pk, force=True)
    for match in Match.objects.filter(tournament=tournament).order_by("id"):
        play_in_process(match)
    return tournament


def test_another_connection_locks_and_updates_the_row_while_the_next_round_is_paired(
    version_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament = swiss_after_round_one(version_factory)
    pair = formats.next_round
    during: list[Any] = []

    def slow_pairing(state: formats.TournamentState, outcomes: Any) -> formats.TournamentState:
        during.append(in_another_connection(lambda: lock_and_touch(tournament.pk)))
        return pair(state, outcomes)

    monkeypatch.setattr(formats, "next_round", slow_pairing)
    after = tournament_advance(tournament_id=tournament.pk)

    assert during == ["locked and updated"]
    assert after.round_number == 2
    assert Match.objects.filter(tournament=tournament, tournament_round=2).count() == 3
    assert Tournament.objects.get(pk=tournament.pk).note == "touched while pairing"


def test_a_round_paired_by_someone_else_meanwhile_is_not_paired_twice(
    version_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament = swiss_after_round_one(version_factory)
    pair = formats.next_round
    calls: list[int] = []

    def racing_pairing(state: formats.TournamentState, outcomes: Any) -> formats.TournamentState:
        calls.append(len(state.rounds))
        if len(calls) == 1:  # while this advance pairs, another one advances the tournament
            other = in_another_connection(lambda: tournament_advance(tournament_id=tournament.pk))
            assert isinstance(other, Tournament) and other.round_number == 2
        return pair(state, outcomes)

    monkeypatch.setattr(formats, "next_round", racing_pairing)
    after = tournament_advance(tournament_id=tournament.pk)

    assert calls == [1, 1]  # both paired round 2 from round 1; only the other one's was written
    assert after.round_number == 2
    assert Match.objects.filter(tournament=tournament, tournament_round=2).count() == 3
    assert Match.objects.filter(tournament=tournament).count() == 6


def test_the_first_round_is_paired_with_the_row_unlocked_too(
    version_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    versions = [version_factory() for _ in range(4)]
    tournament = tournament_create(versions=versions, name="swiss", format="swiss", starts_at=soon())
    pair = formats.first_round
    during: list[Any] = []

    def slow_pairing(*args: Any, **kwargs: Any) -> formats.TournamentState:
        during.append(in_another_connection(lambda: lock_and_touch(tournament.pk)))
        return pair(*args, **kwargs)

    monkeypatch.setattr(formats, "first_round", slow_pairing)
    started = tournament_start(tournament_id=tournament.pk, force=True)

    assert during == ["locked and updated"]
    assert started.status == Tournament.Status.RUNNING
    assert Match.objects.filter(tournament=tournament).count() == 2
