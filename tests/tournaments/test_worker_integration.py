"""The whole pipeline with a real Celery worker (a subprocess) on the real Redis and PostgreSQL:
uploads are validated, ladder matches are played and rated, a worker killed mid-match loses
nothing and counts nothing twice, and concurrent results give the ratings the recompute gives."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.test import override_settings

from bots.models import BotVersion
from bots.services import bot_create, bot_version_upload, builtin_bots_register
from tournaments.models import Game, Match, RatingEvent
from tournaments.services import ladder_tick, match_schedule, matches_sweep, ratings_recompute

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

CELERY = Path(sys.executable).with_name("celery")
WORKER_ENVIRONMENT = {
    "MATCH_LEASE_SECONDS": "6",
    "MATCH_TIME_LIMIT_SECONDS": "120",
    "MATCH_SOFT_MARGIN_SECONDS": "10",
    "CELERY_VISIBILITY_TIMEOUT": "300",
    "MATCH_RETRY_DELAY_SECONDS": "1",
}


class Worker:
    def __init__(self, log: Path, concurrency: int = 1) -> None:
        database = connection.settings_dict
        environment = os.environ | WORKER_ENVIRONMENT
        environment["DATABASE_URL"] = (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
        )
        self.log = log.open("ab")
        self.process = subprocess.Popen(
            [
                str(CELERY),
                "-A",
                "lineit_platform.celery",
                "worker",
                "-l",
                "info",
                "-c",
                str(concurrency),
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-n",
                f"test{time.monotonic_ns()}@%h",
            ],
            env=environment,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.log.close()


@pytest.fixture
def start_worker(transactional_db, tmp_path) -> Iterator[Callable[..., Worker]]:  # type: ignore[no-untyped-def]
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()  # no stale messages from earlier runs
    workers: list[Worker] = []

    def start(concurrency: int = 1) -> Worker:
        worker = Worker(tmp_path / "worker.log", concurrency)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.kill(signal.SIGTERM)
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


def wait_for(
    condition: Callable[[], bool], what: str, timeout: float = 120.0, tick: Callable[[], object] | None = None
) -> None:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if tick is not None:
            tick()
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


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
        code = (Path(settings.BASE_DIR) / "bots/builtin/random_bot.py").read_bytes() + f"# {extra}\n".encode()
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
    match = match_schedule(versions=versions, games=300, ranked=True, seed=42)
    first = start_worker()
    wait_for(lambda: Match.objects.get(pk=match.pk).games_played > 0, "the match to be under way")
    first.kill(signal.SIGKILL)
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("running", 1)
    assert not Game.objects.filter(match=match).exists()  # results are written once, at the end
    start_worker()
    wait_for(
        lambda: Match.objects.get(pk=match.pk).status == "finished",
        "the match to be rerun",
        timeout=180,
        tick=matches_sweep,
    )
    match.refresh_from_db()
    assert match.attempts == 2
    assert Game.objects.filter(match=match).count() == 300
    assert RatingEvent.objects.filter(match=match).count() == 600
    assert ratings_recompute().mismatches == []
