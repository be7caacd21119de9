"""Three queues on the real Redis: work someone waits for (validations, requested test matches,
a new version's placement and SPRT games) goes to ``interactive``, ladder and tournament matches to ``bulk``, the periodic tasks to
``housekeeping``; a worker on several queues serves them in the order named; and an interactive
worker validates an upload while a long ladder match keeps the bulk worker busy."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from celery_processes import CeleryProcess, wait_for, worker
from django.conf import settings

from bots.models import BotVersion
from bots.services import bot_create, bot_version_upload
from lineit.botkit.limits import Limits
from lineit_platform.celery import app
from lineit_platform.queueing import BULK, HOUSEKEEPING, INTERACTIVE, OUTBOUND, QUEUES
from tournaments.models import Match
from tournaments.services.matches.states import match_cancel, match_schedule
from tournaments.services.matches.sweeper import matches_sweep

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

QUICK = Limits(move_seconds=0.05, bank_seconds=1, move_timeout_seconds=0.5, startup_seconds=5)
ENVIRONMENT = {"MATCH_TIME_LIMIT_SECONDS": "3600", "CELERY_VISIBILITY_TIMEOUT": "3720"}


@pytest.fixture
def start_worker(broker, tmp_path) -> Iterator[Callable[..., CeleryProcess]]:  # type: ignore[no-untyped-def]
    started: list[CeleryProcess] = []

    def start(*queues: str, concurrency: int = 1) -> CeleryProcess:
        started.append(worker(tmp_path / f"{'-'.join(queues)}.log", concurrency, ENVIRONMENT, queues=queues))
        return started[-1]

    yield start
    for process in started:
        process.stop(signal.SIGTERM)


PRIORITY_STEPS = (0, 3, 6, 9)  # kombu's Redis transport: a list per queue and priority step


def key(queue: str, priority: int) -> str:
    return queue if priority == 0 else f"{queue}\x06\x16{priority}"


def waiting(broker: redis.Redis) -> dict[str, int]:
    """The messages waiting in each queue, whatever their priority."""
    return {queue: sum(broker.llen(key(queue, step)) for step in PRIORITY_STEPS) for queue in QUEUES}


def test_each_kind_of_work_is_sent_to_its_queue(broker, version_factory, alice) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    match_schedule(versions=versions, games=2, limits=QUICK)  # requested by someone: interactive
    match_schedule(versions=versions, games=2, limits=QUICK, ranked=True, origin=Match.Origin.LADDER)
    match_schedule(versions=versions, games=2, limits=QUICK, ranked=True, origin=Match.Origin.TOURNAMENT)
    match_schedule(versions=versions, games=2, limits=QUICK, ranked=True, origin=Match.Origin.PLACEMENT)
    match_schedule(versions=versions, games=2, limits=QUICK, origin=Match.Origin.SPRT)
    bot_version_upload(
        bot=bot_create(owner=alice, name="queued"),
        uploaded_by=alice,
        filename="bot.py",
        content=b"def act(o):\n    return o['legal_actions'][0]\n",
    )
    assert waiting(broker) == {INTERACTIVE: 4, BULK: 2, HOUSEKEEPING: 0, OUTBOUND: 0}
    # beat sends the periodic tasks by name: each is routed to housekeeping
    for task in settings.CELERY_BEAT_SCHEDULE.values():
        app.send_task(task["task"])
    assert waiting(broker) == {INTERACTIVE: 4, BULK: 2, HOUSEKEEPING: len(settings.CELERY_BEAT_SCHEDULE), OUTBOUND: 0}


def test_within_a_queue_what_someone_waits_for_goes_before_placement_and_sprt(broker, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    match_schedule(versions=versions, games=2, limits=QUICK, ranked=True, origin=Match.Origin.PLACEMENT)
    match_schedule(versions=versions, games=2, limits=QUICK, origin=Match.Origin.SPRT)
    match_schedule(versions=versions, games=2, limits=QUICK)  # requested by someone
    match_schedule(versions=versions, games=2, limits=QUICK, ranked=True, origin=Match.Origin.LADDER)
    assert broker.llen(key(INTERACTIVE, 0)) == 1 and broker.llen(key(INTERACTIVE, 3)) == 2
    assert broker.llen(key(BULK, 9)) == 1


def test_a_lost_message_is_sent_again_to_the_queue_of_its_match(broker, version_factory) -> None:  # type: ignore[no-untyped-def]
    from datetime import timedelta

    from django.utils import timezone

    versions = [version_factory(), version_factory()]
    manual = match_schedule(versions=versions, games=2, limits=QUICK)
    ladder = match_schedule(versions=versions, games=2, limits=QUICK, ranked=True, origin=Match.Origin.LADDER)
    broker.flushdb()  # the messages are lost
    long_ago = timezone.now() - timedelta(seconds=settings.MATCH_RESEND_AFTER_SECONDS + 1)
    Match.objects.filter(pk__in=[manual.pk, ladder.pk]).update(queued_at=long_ago)
    assert matches_sweep()["resent"] == 2
    assert waiting(broker) == {INTERACTIVE: 1, BULK: 1, HOUSEKEEPING: 0, OUTBOUND: 0}


def test_a_worker_on_two_queues_serves_the_interactive_one_first(start_worker, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    ladder = [
        match_schedule(versions=versions, games=1, limits=QUICK, ranked=True, origin=Match.Origin.LADDER)
        for _ in range(3)
    ]
    requested = [match_schedule(versions=versions, games=1, limits=QUICK) for _ in range(3)]  # queued last
    start_worker(INTERACTIVE, BULK)
    wait_for(lambda: not Match.objects.pending().exists(), "the matches")
    started = dict(Match.objects.values_list("pk", "started_at"))
    # every requested match before any ladder match (taking turns between the queues would interleave them)
    assert max(started[match.pk] for match in requested) < min(started[match.pk] for match in ladder)


def test_workers_serve_requested_matches_then_placement_then_the_ladder(start_worker, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    ladder = match_schedule(versions=versions, games=1, limits=QUICK, ranked=True, origin=Match.Origin.LADDER)
    placement = [
        match_schedule(versions=versions, games=1, limits=QUICK, ranked=True, origin=Match.Origin.PLACEMENT)
        for _ in range(2)
    ]
    requested = [match_schedule(versions=versions, games=1, limits=QUICK) for _ in range(2)]  # queued last
    start_worker(INTERACTIVE, BULK)  # a bulk worker: it takes interactive work first
    wait_for(lambda: not Match.objects.pending().exists(), "the matches")
    started = dict(Match.objects.values_list("pk", "started_at"))
    assert max(started[m.pk] for m in requested) < min(started[m.pk] for m in placement)
    assert max(started[m.pk] for m in placement) < started[ladder.pk]


def test_an_upload_is_validated_while_a_long_ladder_match_keeps_the_bulk_worker_busy(  # type: ignore[no-untyped-def]
    start_worker, version_factory, alice
) -> None:
    search = (Path(settings.BASE_DIR) / "lineit" / "builtin" / "search_bot.py").read_bytes()
    searchers = [version_factory(code=search), version_factory(code=search + b"# the other one\n")]
    long_match = match_schedule(versions=searchers, games=40, ranked=True, origin=Match.Origin.LADDER)
    start_worker(BULK)
    start_worker(INTERACTIVE)
    wait_for(lambda: Match.objects.get(pk=long_match.pk).status == "running", "the ladder match to start")
    version = bot_version_upload(
        bot=bot_create(owner=alice, name="waiting"),
        uploaded_by=alice,
        filename="bot.py",
        content=b"def act(o):\n    return o['legal_actions'][0]\n",
    )
    wait_for(lambda: BotVersion.objects.get(pk=version.pk).status != "validating", "the validation", timeout=60)
    assert BotVersion.objects.get(pk=version.pk).status == "active"
    assert Match.objects.get(pk=long_match.pk).status == "running"  # still playing: it did not wait for it
    match_cancel(match=long_match)


def test_a_backlog_is_not_sent_again_only_what_the_broker_lost(broker, version_factory) -> None:  # type: ignore[no-untyped-def]
    """30 matches wait longer than MATCH_RESEND_AFTER_SECONDS behind a busy ladder: their messages
    are all still in the queue, so the sweeper sends none again, however often it passes (before,
    each pass sent the whole backlog once more: 62 -> 122 messages in two minutes). A message the
    broker lost, and only that one, is sent again; so is one whose match a worker holds
    unacknowledged (Redis's unacked hash) not."""
    from datetime import timedelta

    from django.utils import timezone

    versions = [version_factory(), version_factory()]
    backlog = [
        match_schedule(versions=versions, games=2, limits=QUICK, ranked=True, origin=Match.Origin.LADDER)
        for _ in range(30)
    ]
    assert waiting(broker)[BULK] == 30
    long_ago = timezone.now() - timedelta(seconds=settings.MATCH_RESEND_AFTER_SECONDS + 1)
    Match.objects.filter(pk__in=[match.pk for match in backlog]).update(queued_at=long_ago)
    for _ in range(3):
        assert matches_sweep()["resent"] == 0
    assert waiting(broker)[BULK] == 30
    # A worker took one (it is in the unacked hash, not in the queue): not lost either.
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue(BULK)
        taken = queue.get(block=False)  # left unacknowledged
        assert matches_sweep()["resent"] == 0
        assert waiting(broker)[BULK] == 29
        # The broker loses one message: it alone is sent again.
        lost = broker.rpop(key(BULK, 9))
        assert lost is not None
        assert matches_sweep()["resent"] == 1
        assert waiting(broker)[BULK] == 29
        taken.ack()
        queue.close()
