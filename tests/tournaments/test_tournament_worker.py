"""Tournaments end to end on a real Celery worker (a subprocess), Redis and PostgreSQL: one of each
format at once; a worker killed in the middle of one, with a bot that fails every game and
tasks delivered twice; and a tournament started at its time by the one beat process."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from celery_processes import CeleryProcess, wait_for
from django.conf import settings
from django.utils import timezone
from test_worker_integration import integration_worker
from tournament_helpers import CRASHING_BOT

from lineit import formats
from tournaments.models import Game, Match, Tournament
from tournaments.selectors.tournaments import tournament_standings
from tournaments.services.matches.sweeper import matches_sweep
from tournaments.services.ratings_recompute import ratings_recompute
from tournaments.services.tournaments.creation import tournament_create
from tournaments.tasks import tournament_advance_task, tournament_start_task

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SLOW_BOT = (
    (Path(settings.BASE_DIR) / "lineit/builtin/random_bot.py")
    .read_bytes()
    .replace(
        b"    def act(self, observation: dict) -> str:\n",
        b"    def act(self, observation: dict) -> str:\n        __import__('time').sleep(0.01)\n",
    )
)
QUIET = {"LADDER_ENABLED": "false"}  # no ladder matches among the test's versions


def _broker() -> redis.Redis:
    return redis.Redis.from_url(settings.CELERY_BROKER_URL)


def beat_process(log: Path) -> CeleryProcess:
    """The one beat process, reading the test database's schedule."""
    arguments = ["beat", "-l", "info", "--max-interval", "1"]
    arguments += ["--schedule", str(log.parent / "beat-schedule")]  # unused by the database scheduler
    return CeleryProcess(arguments, log, QUIET | {"SWEEP_INTERVAL_SECONDS": "2"})


@pytest.fixture
def processes(transactional_db, tmp_path, monkeypatch) -> Iterator[dict[str, Callable[..., Any]]]:  # type: ignore[no-untyped-def]
    for name, value in QUIET.items():
        monkeypatch.setenv(name, value)
    _broker().flushdb()
    processes: list[CeleryProcess] = []

    def worker(concurrency: int = 1) -> CeleryProcess:
        processes.append(integration_worker(tmp_path / "worker.log", concurrency))
        return processes[-1]

    def beat() -> CeleryProcess:
        processes.append(beat_process(tmp_path / "beat.log"))
        return processes[-1]

    yield {"worker": worker, "beat": beat}
    for started in processes:
        started.stop(signal.SIGTERM)
    _broker().flushdb()


def finished(*tournaments: Tournament) -> Callable[[], bool]:
    ids = [t.pk for t in tournaments]
    return lambda: not Tournament.objects.filter(pk__in=ids).exclude(status="finished").exists()


def assert_complete(tournament: Tournament, entrants: int) -> None:
    """Finished, every pairing played by exactly one finished match of its games, a full table."""
    tournament.refresh_from_db()
    assert tournament.status == "finished", tournament.note
    state = formats.TournamentState.from_dict(tournament.state)
    pairings = [p for r in state.rounds for p in r.pairings if not p.bye]
    matches = Match.objects.filter(tournament=tournament)
    assert sorted(matches.values_list("tournament_round", "tournament_table")) == sorted(
        (p.round, p.table) for p in pairings
    )
    assert set(matches.values_list("status", flat=True)) == {"finished"}
    assert Game.objects.filter(match__tournament=tournament).count() == 2 * len(pairings)
    final = tournament_standings(tournament)[-1]["rows"]
    assert len(final) == entrants and final[0]["place"] == 1


def create(versions: list[Any], format: str, **extra: Any) -> Tournament:
    fields = {"name": f"e2e {format}", "format": format, "starts_at": timezone.now(), "games_per_pairing": 2}
    return tournament_create(versions=versions, **(fields | extra))


def test_one_tournament_of_each_format_runs_to_the_end_on_a_worker(processes, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(5)]
    tournaments = [
        create(versions[:4], "round-robin", ranked=True),
        create(versions, "swiss", options={"rounds": 2}),
        create(versions, "single"),
        create(versions[:4], "double"),
    ]
    for tournament in tournaments:
        tournament_start_task.delay(tournament.pk)
    processes["worker"](concurrency=2)
    wait_for(finished(*tournaments), "four tournaments", timeout=150)
    for tournament, entrants in zip(tournaments, (4, 5, 5, 4)):
        assert_complete(tournament, entrants)
    assert ratings_recompute().mismatches == []


def test_a_worker_killed_mid_tournament_and_tasks_run_twice_change_no_result(processes, version_factory) -> None:  # type: ignore[no-untyped-def]
    slow = [version_factory(code=SLOW_BOT) for _ in range(3)]
    crashing = version_factory(code=CRASHING_BOT)
    tournament = create([*slow, crashing], "round-robin")
    tournament_start_task.delay(tournament.pk)
    tournament_start_task.delay(tournament.pk)  # a second delivery of the start
    first = processes["worker"]()
    wait_for(lambda: Match.objects.filter(tournament=tournament, status="running").exists(), "a match under way")
    victim = Match.objects.get(tournament=tournament, status="running")
    first.stop(signal.SIGKILL)
    victim.refresh_from_db()
    assert (victim.status, victim.attempts) == ("running", 1)

    for _ in range(3):
        tournament_advance_task.delay(tournament.pk)  # deliveries that find nothing to do
    processes["worker"]()
    wait_for(finished(tournament), "the tournament after the kill", timeout=150, tick=matches_sweep)
    assert_complete(tournament, entrants=4)
    victim.refresh_from_db()
    assert (victim.status, victim.attempts) == ("finished", 2)
    assert victim.game_logs.count() == 2
    final = tournament_standings(tournament)[-1]["rows"]
    assert final[-1]["entrant"] == crashing.pk and final[-1]["points"] == 0.0


def test_beat_starts_a_tournament_at_its_time(processes, version_factory) -> None:  # type: ignore[no-untyped-def]
    starts_at = timezone.now() + timedelta(seconds=3)
    tournament = create([version_factory() for _ in range(3)], "round-robin", starts_at=starts_at)
    processes["worker"]()
    processes["beat"]()
    wait_for(finished(tournament), "the scheduled tournament", timeout=120)
    assert_complete(tournament, entrants=3)
    tournament.refresh_from_db()
    assert tournament.started_at >= starts_at
    assert not tournament.start_task.enabled  # a one-off: done
