"""A match played in chunks (services/matches/chunks.py): chunks claimed by several workers in any
order give the result one process gives, a chunk whose worker died is played again alone, a
platform failure keeps the chunks already recorded, and a bot stopped for its failures in one
chunk is stopped in the later ones too. On PostgreSQL, with the real sandbox."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from bots.code_cache import version_source
from bots.runner import sandbox_match_run
from lineit.botkit.failures import STOPPED
from lineit.botkit.limits import Limits
from lineit.botkit.schedule import longest_seconds
from lineit.botkit.stops import whole_deal_parts
from lineit_platform.workers import worker_name
from tournaments.models import Game, GameFailure, LiveGame, Match, MatchChunk, RatingEvent
from tournaments.services.matches.chunks import chunk_claim, chunk_record, chunk_release
from tournaments.services.matches.execution import Progress, Superseded, match_execute
from tournaments.services.matches.states import match_claim, match_requeue, match_schedule, match_spec

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("small_chunks")]

QUICK = Limits(move_seconds=0.05, bank_seconds=1, move_timeout_seconds=0.5, startup_seconds=5)
CRASHING_BOT = b"def act(observation):\n    raise RuntimeError('boom')\n"


@pytest.fixture
def small_chunks():  # type: ignore[no-untyped-def]
    with override_settings(MATCH_CHUNK_GAMES=2):
        yield


def _play(match: Match, chunk: MatchChunk):  # type: ignore[no-untyped-def]
    """The games of one chunk, played as match_execute plays them."""
    return _play_with(match, chunk, Progress(match.pk, match.attempts, chunk=chunk))


def _play_with(match: Match, chunk: MatchChunk, progress: Progress):  # type: ignore[no-untyped-def]
    sources = [version_source(entrant.version) for entrant in match.entrants.order_by("index")]
    spec = dataclasses.replace(match_spec(match), shard=range(chunk.first, chunk.stop))
    return sandbox_match_run(
        spec=spec,
        sources=sources,
        limits=Limits.from_dict(match.limits),
        on_game=progress,
        stopped=frozenset(chunk.stopped),
    )


def _games(match: Match) -> list[tuple[int, list[int], list[int], list[int]]]:
    return [
        (game.index, game.seats, game.scores, game.ranks) for game in Game.objects.filter(match=match).order_by("index")
    ]


def _one_process(match: Match):  # type: ignore[no-untyped-def]
    sources = [version_source(entrant.version) for entrant in match.entrants.order_by("index")]
    return sandbox_match_run(spec=match_spec(match), sources=sources, limits=Limits.from_dict(match.limits))


def test_parts_are_whole_deals_covering_the_games() -> None:
    assert whole_deal_parts(10, 0, 4, 2) == [range(0, 4), range(4, 8), range(8, 10)]
    assert whole_deal_parts(10, 0, 4, 3) == [range(0, 6), range(6, 10)]  # 4 rounded up to 2 deals of 3
    assert whole_deal_parts(7, 5, 2, 1) == [range(5, 7)]
    assert whole_deal_parts(3, 0, 100, 3) == [range(0, 3)]


def test_a_match_is_cut_into_chunks_and_played_to_the_result_of_one_process(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=8, seed=3, limits=QUICK, ranked=True)
    done = match_execute(match_id=match.pk, worker="w")
    assert done is not None and done.status == "finished"
    chunks = list(MatchChunk.objects.filter(match=match).order_by("first"))
    assert [(c.first, c.stop, c.status, c.attempts, c.worker) for c in chunks] == [
        (first, first + 2, "finished", 1, "w") for first in (0, 2, 4, 6)
    ]
    assert all(chunk.result is None for chunk in chunks)  # the Game rows hold the games now
    whole = _one_process(match)
    assert _games(match) == [(g.index, list(g.seats), g.scores, g.ranks) for g in whole.games]
    assert RatingEvent.objects.filter(match=match).count() == 16  # rated once, when all of it was in
    assert not LiveGame.objects.filter(match=match).exists()


def test_workers_playing_chunks_in_any_order_record_the_match_once(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=6, seed=8, limits=QUICK, ranked=True)
    claimed = match_claim(match_id=match.pk, worker="first")
    assert claimed is not None
    taken = [chunk_claim(match_id=match.pk, worker=name) for name in ("first", "second", "third")]
    assert [chunk.first for chunk in taken if chunk] == [0, 2, 4]  # each worker its own chunk
    assert chunk_claim(match_id=match.pk, worker="fourth") is None  # nothing left to take
    results = {chunk.pk: _play(claimed, chunk) for chunk in taken if chunk}
    for chunk in reversed(taken):  # the last chunk ends first
        assert chunk is not None
        assert chunk_record(chunk_id=chunk.pk, attempt=1, result=results[chunk.pk]) is True
        status = Match.objects.get(pk=match.pk).status
        assert status == ("finished" if chunk is taken[0] else "running")
        assert RatingEvent.objects.filter(match=match).exists() is (status == "finished")
    assert chunk_record(chunk_id=taken[0].pk, attempt=1, result=results[taken[0].pk]) is False  # told twice
    whole = _one_process(claimed)
    assert _games(match) == [(g.index, list(g.seats), g.scores, g.ranks) for g in whole.games]
    assert RatingEvent.objects.filter(match=match).count() == 12


def test_a_chunk_whose_worker_stopped_is_played_again_alone(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=4, seed=5, limits=QUICK)
    claimed = match_claim(match_id=match.pk, worker="w1")
    assert claimed is not None
    lost = chunk_claim(match_id=match.pk, worker="w1")
    kept = chunk_claim(match_id=match.pk, worker="w2")
    assert lost is not None and kept is not None
    stale = _play(claimed, lost)
    assert chunk_record(chunk_id=kept.pk, attempt=1, result=_play(claimed, kept)) is True
    assert chunk_claim(match_id=match.pk, worker="w3") is None  # w1 is still within its lease
    MatchChunk.objects.filter(pk=lost.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    again = chunk_claim(match_id=match.pk, worker="w3")
    assert again is not None and (again.pk, again.attempts) == (lost.pk, 2) and "w1" in again.error
    assert chunk_record(chunk_id=lost.pk, attempt=1, result=stale) is False  # w1 came back late
    assert chunk_record(chunk_id=lost.pk, attempt=2, result=_play(claimed, again)) is True
    chunks = MatchChunk.objects.filter(match=match).order_by("first")
    assert [(c.worker, c.attempts) for c in chunks] == [("w3", 2), ("w2", 1)]  # the other was played once
    assert Match.objects.get(pk=match.pk).status == "finished"
    assert len(_games(match)) == 4


def test_a_chunk_of_a_dead_process_on_this_host_is_taken_at_once(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=4, limits=QUICK)
    assert match_claim(match_id=match.pk, worker="w") is not None
    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid is free: no process has it (until the system hands it out again)
    alive = worker_name("celery@host")  # this process
    dead = alive.rpartition(":")[0] + f":{gone.pid}"
    elsewhere = f"celery@host:another-boot-or-namespace:{gone.pid}"  # a pid of another process space
    assert alive.endswith(f":{os.getpid()}")
    first = chunk_claim(match_id=match.pk, worker=alive)
    second = chunk_claim(match_id=match.pk, worker=dead)
    assert first is not None and second is not None
    taken = chunk_claim(match_id=match.pk, worker="other")  # long before the dead one's deadline
    assert taken is not None and (taken.pk, taken.attempts) == (second.pk, 2)
    assert chunk_claim(match_id=match.pk, worker="another") is None  # the live one's chunk stays its own
    MatchChunk.objects.filter(pk=taken.pk).update(worker=elsewhere)
    assert chunk_claim(match_id=match.pk, worker="another") is None  # a dead-looking pid elsewhere: its lease decides


def test_a_claim_tried_again_gets_the_workers_own_chunk_back(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=4, limits=QUICK)
    assert match_claim(match_id=match.pk, worker="w") is not None
    first = chunk_claim(match_id=match.pk, worker="w")
    again = chunk_claim(match_id=match.pk, worker="w")  # its commit went unconfirmed: asked again
    assert first is not None and again is not None and (again.pk, again.attempts) == (first.pk, 1)
    assert MatchChunk.objects.filter(match=match, status="running").count() == 1


def test_a_superseded_attempt_stops_playing_and_never_renews_the_new_ones_lease(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=4, limits=QUICK)
    claimed = match_claim(match_id=match.pk, worker="w1")
    assert claimed is not None
    old = chunk_claim(match_id=match.pk, worker="w1")
    assert old is not None
    MatchChunk.objects.filter(pk=old.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    new = chunk_claim(match_id=match.pk, worker="w2")
    assert new is not None and new.pk == old.pk and new.attempts == 2
    renewed_by_new = MatchChunk.objects.get(pk=new.pk).deadline
    progress = Progress(match.pk, claimed.attempts, chunk=old)
    progress.every = 0  # renew at every game
    with pytest.raises(Superseded):
        _play_with(claimed, old, progress)
    assert MatchChunk.objects.get(pk=new.pk).deadline == renewed_by_new  # w1 did not keep w2's lease alive
    assert match_execute(match_id=match.pk, worker="w3") is not None  # w2 is alive: w3 plays the other chunk
    assert MatchChunk.objects.get(pk=new.pk).worker == "w2"


def test_requeuing_a_running_match_gives_its_chunks_another_try(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=4, limits=QUICK)
    running = match_claim(match_id=match.pk, worker="w")
    assert running is not None
    MatchChunk.objects.filter(match=match, first=0).update(
        status="running", attempts=match.max_attempts, worker="gone", deadline=timezone.now()
    )  # its leases kept running out: on its last attempt
    match_requeue(match=running)
    done = match_execute(match_id=match.pk, worker="w")
    assert done is not None and done.status == "finished"
    assert MatchChunk.objects.get(match=match, first=0).attempts == match.max_attempts


def test_a_platform_failure_keeps_the_chunks_recorded(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=6, seed=2, limits=QUICK)
    claimed = match_claim(match_id=match.pk, worker="w")
    assert claimed is not None
    first = chunk_claim(match_id=match.pk, worker="w")
    assert first is not None and chunk_record(chunk_id=first.pk, attempt=1, result=_play(claimed, first))
    second = chunk_claim(match_id=match.pk, worker="w")
    assert second is not None
    released = chunk_release(chunk_id=second.pk, attempt=1, error="PlatformFailure: the sandbox did not start")
    assert released is not None and (released.status, released.attempts) == ("queued", 1)  # nothing else playing
    assert "did not start" in released.error
    again = match_execute(match_id=match.pk, worker="w")  # the task's retry
    assert again is not None and (again.status, again.attempts) == ("finished", 2)
    chunks = MatchChunk.objects.filter(match=match).order_by("first")
    assert [c.attempts for c in chunks] == [1, 2, 1]  # the recorded chunk was not played again
    assert len(_games(match)) == 6


def test_a_chunk_failing_every_attempt_fails_the_match(version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=4, limits=QUICK)
    for attempt in range(1, match.max_attempts + 1):
        assert match_claim(match_id=match.pk, worker="w") is not None
        chunk = chunk_claim(match_id=match.pk, worker="w")
        assert chunk is not None and chunk.attempts == attempt and chunk.first == 0
        released = chunk_release(chunk_id=chunk.pk, attempt=attempt, error="PlatformFailure: no sandbox")
    assert released is not None and released.status == "failed" and "after 3 attempts" in released.error
    assert not Game.objects.filter(match=match).exists()


def test_a_bot_stopped_for_its_failures_in_one_chunk_is_stopped_in_the_next(version_factory) -> None:  # type: ignore[no-untyped-def]
    limits = dataclasses.replace(QUICK, max_failures=2)
    crashing = version_factory(code=CRASHING_BOT)
    match = match_schedule(versions=[crashing, version_factory()], games=8, seed=4, limits=limits, ranked=True)
    done = match_execute(match_id=match.pk, worker="w")
    assert done is not None and done.status == "finished"
    whole = _one_process(match)  # one process: 2 failures, then stopped for the other 6 games
    kinds = [sorted(f.kind for f in record.failures) for record in whole.games]
    assert kinds == [["exception"]] * 2 + [[STOPPED]] * 6
    recorded = [
        sorted(GameFailure.objects.filter(game=game).values_list("kind", flat=True))
        for game in Game.objects.filter(match=match).order_by("index")
    ]
    assert recorded == kinds
    assert _games(match) == [(g.index, list(g.seats), g.scores, g.ranks) for g in whole.games]
    chunks = MatchChunk.objects.filter(match=match).order_by("first")
    assert [(c.first, c.stop, c.stopped) for c in chunks] == [(0, 2, []), (2, 4, [0]), (4, 6, [0]), (6, 8, [0])]
    assert RatingEvent.objects.filter(match=match).count() == 16


def test_a_task_short_of_time_hands_the_next_chunk_to_a_new_task(
    version_factory, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=4, seed=1, limits=QUICK)
    one_chunk = longest_seconds(2, 2, QUICK)
    # a task may last int(one_chunk) seconds: one chunk may last longer than what is left after one
    with override_settings(MATCH_TIME_LIMIT_SECONDS=int(one_chunk) + 10, MATCH_SOFT_MARGIN_SECONDS=10):
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            first = match_execute(match_id=match.pk, worker="w")
        assert first is not None and first.status == "running"
        chunks = list(MatchChunk.objects.filter(match=match).order_by("first"))
        assert [(c.status, c.attempts) for c in chunks] == [("finished", 1), ("queued", 0)]
        assert len(callbacks) == 2  # the claim's message for the other chunk, and the hand-over
        second = match_execute(match_id=match.pk, worker="w2")
    assert second is not None and second.status == "finished" and len(_games(match)) == 4
