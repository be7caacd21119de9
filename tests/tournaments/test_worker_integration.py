"""The whole pipeline with a real Celery worker (a subprocess) on the real Redis and PostgreSQL:
uploads are validated, ladder matches are played and rated, a worker killed mid-match loses
nothing and counts nothing twice, and concurrent results give the ratings the recompute gives."""

from __future__ import annotations

import random
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from celery_processes import CeleryProcess, wait_for, worker
from django.conf import settings
from django.test import override_settings

from bots.models import BotVersion
from bots.services import bot_create, bot_version_upload, builtin_bots_register
from lineit.botkit.limits import Limits
from tournaments.models import Game, LiveGame, Match, MatchChunk, RatingEvent
from tournaments.services.ladder import ladder_tick
from tournaments.services.matches.states import match_schedule
from tournaments.services.matches.sweeper import matches_sweep
from tournaments.services.ratings_recompute import ratings_recompute

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

WORKER_ENVIRONMENT = {
    "MATCH_LEASE_SECONDS": "6",  # far below a game of the default limits (a warning): quick recoveries
    "MATCH_TIME_LIMIT_SECONDS": "3600",  # admits the tests' matches under the default limits
    "MATCH_SOFT_MARGIN_SECONDS": "10",
    "CELERY_VISIBILITY_TIMEOUT": "3720",
    "MATCH_RETRY_DELAY_SECONDS": "1",
}


def integration_worker(log: Path, concurrency: int = 1) -> CeleryProcess:
    """A worker with short leases and retries, so the tests see recoveries in seconds."""
    return worker(log, concurrency, WORKER_ENVIRONMENT)


@pytest.fixture
def start_worker(transactional_db, tmp_path) -> Iterator[Callable[..., CeleryProcess]]:  # type: ignore[no-untyped-def]
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()  # no stale messages from earlier runs
    workers: list[CeleryProcess] = []

    def start(concurrency: int = 1) -> CeleryProcess:
        workers.append(integration_worker(tmp_path / "worker.log", concurrency))
        return workers[-1]

    yield start
    for started in workers:
        started.stop(signal.SIGTERM)
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


def test_an_upload_is_validated_by_the_worker(start_worker, alice) -> None:  # type: ignore[no-untyped-def]
    start_worker()
    bot = bot_create(owner=alice, name="alices")
    good = bot_version_upload(
        bot=bot, uploaded_by=alice, filename="bot.py", content=b"def act(o):\n    return o['legal_actions'][-1]\n"
    )
    bad = bot_version_upload(
        bot=bot, uploaded_by=alice, filename="bot.py", content=b"def act(o):\n    return 'not an action'\n"
    )
    wait_for(lambda: not BotVersion.objects.filter(status="validating").exists(), "validation")
    good.refresh_from_db()
    bad.refresh_from_db()
    assert good.status == "active"
    assert bad.status == "rejected" and "illegal_move" in bad.rejection_reason


@override_settings(LADDER_PENDING_TARGET=6, LADDER_TABLE_SIZES=[2, 3], LADDER_DEALS_PER_MATCH=2)
def test_ladder_matches_played_concurrently_give_the_recomputed_ratings(start_worker) -> None:  # type: ignore[no-untyped-def]
    builtin_bots_register(names=("random", "greedy"))
    bot = BotVersion.objects.get(bot__name="random").bot
    for extra in range(2):  # two more random bots, so tables of 3 exist
        twin = bot_create(owner=bot.owner, name=f"random-{extra}")
        code = (Path(settings.BASE_DIR) / "lineit/builtin/random_bot.py").read_bytes() + f"# {extra}\n".encode()
        BotVersion.objects.filter(
            pk=bot_version_upload(bot=twin, uploaded_by=bot.owner, filename="bot.py", content=code, validate=False).pk
        ).update(status="active")
    scheduled = ladder_tick(rng=random.Random(7))
    assert len(scheduled) == 6
    start_worker(concurrency=2)
    wait_for(lambda: not Match.objects.pending().exists(), "the ladder matches")
    assert set(Match.objects.values_list("status", flat=True)) == {"finished"}
    assert not Match.objects.filter(rated_at__isnull=True).exists()
    assert RatingEvent.objects.count() == sum(m.games * m.num_players for m in Match.objects.all())
    assert ratings_recompute().mismatches == []


def test_a_worker_killed_mid_match_loses_nothing_and_counts_nothing_twice(start_worker, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    quick = Limits(move_seconds=0.05, bank_seconds=1, move_timeout_seconds=0.5, startup_seconds=2)
    match = match_schedule(versions=versions, games=300, ranked=True, seed=42, limits=quick)  # fits the time limit
    first = start_worker()
    wait_for(lambda: LiveGame.objects.filter(match=match).exists(), "the match to be under way")
    first.stop(signal.SIGKILL)
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("running", 1)
    assert not Game.objects.filter(match=match).exists()  # results are written once, at the end
    killed = MatchChunk.objects.filter(match=match, status="running").first()  # None: killed between two
    start_worker()
    wait_for(
        lambda: Match.objects.get(pk=match.pk).status == "finished",
        "the match to be played on",
        timeout=180,
        tick=matches_sweep,
    )
    match.refresh_from_db()
    # The next worker joined the match (another chunk's message: the dead process was of this
    # host) or the sweeper started it again (its lease ran out first): either way only the
    # killed chunk was played again.
    assert match.attempts in (1, 2)
    attempts = dict(MatchChunk.objects.filter(match=match).values_list("pk", "attempts"))
    assert killed is None or attempts.pop(killed.pk) == 2
    assert set(attempts.values()) == {1}
    assert Game.objects.filter(match=match).count() == 300
    assert RatingEvent.objects.filter(match=match).count() == 600
    assert ratings_recompute().mismatches == []
