"""The SPRT of a new version on the platform (tournaments/services/sprt.py): deal pairs played new
against old in the real sandbox until the kit's sequential test decides, the same numbers as
lineit.stats.sprt and `lineit sprt` on the same games, started when a new version becomes active,
one running test per bot, cancelled when a version leaves play or is replaced, batches that fail
tried again, and the whole way through a real Celery worker."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from celery_processes import CeleryProcess, wait_for, worker
from django.conf import settings
from django.db import IntegrityError, transaction
from django.test import override_settings

from bots.models import BotVersion
from bots.services import bot_create, bot_version_activate, bot_version_retire, bot_version_upload
from lineit.stats.sprt import Bounds, Sprt
from lineit_platform.errors import ApplicationError, Conflict
from tournaments.models import Game, Match, SprtTest
from tournaments.selectors.sprt import previous_active_version
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_claim, match_release
from tournaments.services.sprt import (
    bot_sprt_setting_set,
    sprt_cancel,
    sprt_record_match,
    sprt_start,
    sprt_sweep,
    sprt_version_changed,
)

LINEIT = Path(sys.executable).with_name("lineit")
BUILTIN = Path(__file__).resolve().parents[2] / "lineit" / "builtin"


def bot_code(name: str) -> bytes:
    return (BUILTIN / f"{name}_bot.py").read_bytes()


CRASHING_BOT = b"def act(observation):\n    raise RuntimeError('boom')\n"


def play_until_decided(test: SprtTest, most_batches: int = 50) -> SprtTest:
    """Play each batch match in the sandbox, as a worker would, and fold it in, as its task would."""
    for _ in range(most_batches):
        test.refresh_from_db()
        if not test.is_running:
            return test
        assert test.current_match_id is not None
        match_execute(match_id=test.current_match_id, worker="test")
        sprt_record_match(match_id=test.current_match_id)
    raise AssertionError("the test did not end")


def kit_sprt_of(test: SprtTest) -> Sprt:
    """The kit's test fed with the platform's stored games, directly: a deal pair is the new
    version's (entrant 0's) points over the deal's two games."""
    sprt = Sprt(Bounds(test.elo0, test.elo1, test.alpha, test.beta))
    for match in test.matches.filter(status=Match.Status.FINISHED).order_by("id"):
        points: dict[int, float] = {}
        for game in Game.objects.filter(match=match):
            seat = game.seats.index(0)
            points[game.deal] = points.get(game.deal, 0.0) + (
                1.0 / game.ranks.count(1) if game.ranks[seat] == 1 else 0.0
            )
        for value in points.values():
            sprt.add_pair(value)
    return sprt


@pytest.fixture
def two_versions(version_factory: Any, bot_factory: Any, alice: Any) -> tuple[BotVersion, BotVersion]:
    """alice's bot: v1 plays as the built-in random bot, v2 as the built-in greedy bot."""
    bot = bot_factory(owner=alice, name="alices")
    old = version_factory(bot=bot, number=1, code=bot_code("random"))
    new = version_factory(bot=bot, number=2, code=bot_code("greedy"))
    return new, old


@pytest.mark.django_db
def test_greedy_against_random_accepts_h1_with_the_kits_numbers_and_the_clis_games(two_versions) -> None:  # type: ignore[no-untyped-def]
    new, old = two_versions
    test = sprt_start(new_version=new, batch_games=10, max_games=200, seed=11)
    assert (test.status, test.old_version, test.games) == ("running", old, 0)
    first = test.current_match
    assert first is not None and (first.origin, first.ranked, first.games, first.num_players) == ("sprt", False, 10, 2)
    assert [e.version_id for e in first.entrants.order_by("index")] == [new.pk, old.pk]

    test = play_until_decided(test)

    assert test.status == SprtTest.Status.H1 and test.finished_at is not None and test.current_match is None
    kit = kit_sprt_of(test)
    assert test.pair_counts == kit.counts and test.pairs == test.games // 2 == kit.pairs
    assert test.llr == pytest.approx(kit.llr()) and test.llr >= test.llr_upper == pytest.approx(kit.bounds.upper)
    elo, low, high = kit.elo()
    assert (test.elo, test.elo_low, test.elo_high) == pytest.approx((elo, low, high))
    assert test.matches.count() == test.batches == test.games // 10
    # `lineit sprt` with the same seed and batch plays the same deals and stops at the same batch.
    command = [str(LINEIT), "sprt", str(BUILTIN / "greedy_bot.py"), str(BUILTIN / "random_bot.py")]
    command += ["--seed", "11", "--batch", "10", "--max-games", "200", "--json"]
    cli = json.loads(subprocess.run(command, capture_output=True, text=True, check=True, timeout=600).stdout)
    assert (cli["result"], cli["games"], cli["pairs"]) == ("H1", test.games, test.pair_counts)
    assert cli["llr"] == pytest.approx(test.llr)


@pytest.mark.django_db
def test_a_copy_against_itself_is_not_accepted_and_stops_at_the_cap(version_factory, bot_factory, alice) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    old = version_factory(bot=bot, number=1)
    new = version_factory(bot=bot, number=2, code=bot_code("random") + b"\n# the same bot\n")
    test = play_until_decided(sprt_start(new_version=new, old_version=old, batch_games=6, max_games=16, seed=5))
    assert test.status in (SprtTest.Status.H0, SprtTest.Status.UNDECIDED)
    assert test.games <= 16 and [m.games for m in test.matches.order_by("id")][-1] in (6, 4)
    if test.status == SprtTest.Status.UNDECIDED:  # the last batch is cut to the cap: 6 + 6 + 4
        assert test.games == 16 and test.llr_lower < test.llr < test.llr_upper
    assert test.pair_counts == kit_sprt_of(test).counts


@pytest.mark.django_db
def test_a_failing_new_version_loses_its_forfeited_games(version_factory, bot_factory, alice) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory(owner=alice)
    version_factory(bot=bot, number=1)
    new = version_factory(bot=bot, number=2, code=CRASHING_BOT)
    test = play_until_decided(sprt_start(new_version=new, batch_games=10, max_games=100, seed=2))
    assert test.status == SprtTest.Status.H0
    assert test.failures_new == test.games and test.failures_old == 0  # every game of it forfeited
    assert test.pair_counts[0] == test.pairs and test.score == 0.0 and test.elo is None  # -inf


@pytest.mark.django_db
def test_bad_parameters_and_a_second_running_test_are_refused(two_versions, version_factory) -> None:  # type: ignore[no-untyped-def]
    new, old = two_versions
    for kwargs, message in [
        ({"elo0": 10, "elo1": 5}, "elo0 must be below elo1"),
        ({"alpha": 0.7}, "alpha must be between"),
        ({"batch_games": 7}, "even number"),
        ({"batch_games": 20, "max_games": 10}, "max_games must be from"),
        ({"ruleset": "chess"}, "ruleset"),
        ({"old_version": version_factory()}, "same bot"),
    ]:
        with pytest.raises(ApplicationError, match=message):
            sprt_start(new_version=new, **kwargs)
    with pytest.raises(ApplicationError, match="no earlier active version"):
        sprt_start(new_version=old)
    assert not SprtTest.objects.exists() and not Match.objects.exists()
    sprt_start(new_version=new, batch_games=4, max_games=8)
    with pytest.raises(Conflict, match="has a test running already"):
        sprt_start(new_version=new)
    with pytest.raises(IntegrityError), transaction.atomic():  # the database holds the rule too
        SprtTest.objects.filter(pk=SprtTest.objects.get().pk).update(status="running")
        SprtTest.objects.create(
            bot=new.bot, new_version=new, old_version=old, ruleset="standard", elo0=0, elo1=10, alpha=0.05,
            beta=0.05, batch_games=4, max_games=8, seed=1, pair_counts=[0] * 5, llr_lower=-2.9, llr_upper=2.9,
        )  # fmt: skip
    assert SprtTest.objects.count() == Match.objects.count() == 1


@pytest.mark.django_db
def test_a_new_active_version_starts_its_test_after_commit_when_the_setting_is_on(  # type: ignore[no-untyped-def]
    version_factory, bot_factory, alice, django_capture_on_commit_callbacks
) -> None:
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("interactive")
    bot = bot_factory(owner=alice)
    v1 = version_factory(bot=bot, number=1)
    v2 = version_factory(bot=bot, number=2, status="validating")
    with django_capture_on_commit_callbacks(execute=True):
        bot_version_activate(version=v2)
    # The hook sent the task, by name, to the interactive queue; the worker would run this:
    assert any(b"sprt_version_changed_task" in message for message in broker.lrange("interactive", 0, -1))
    test = sprt_version_changed(version_id=v2.pk)
    assert test is not None and (test.new_version, test.old_version, test.status) == (v2, v1, "running")
    assert sprt_version_changed(version_id=v2.pk) is None  # a redelivered message starts nothing more
    assert (test.batch_games, test.max_games) == (settings.SPRT_BATCH_GAMES, settings.SPRT_MAX_GAMES)
    assert (test.elo0, test.elo1, test.alpha, test.beta) == (0.0, 10.0, 0.05, 0.05)  # the kit's defaults
    assert previous_active_version(v1) is None

    # v3 replaces v2 while its test runs: that test is cancelled, v3 is tested against v2.
    v3 = version_factory(bot=bot, number=3)
    newer = sprt_version_changed(version_id=v3.pk)
    test.refresh_from_db()
    assert (test.status, test.reason) == ("cancelled", f"replaced by {v3.label}")
    assert test.matches.get().status == Match.Status.CANCELLED
    assert newer is not None and (newer.new_version, newer.old_version) == (v3, v2)

    # The owner turns the setting off: v4 starts nothing (v3's test is still replaced).
    bot_sprt_setting_set(bot=bot, test_new_versions=False, changed_by=alice)
    v4 = version_factory(bot=bot, number=4)
    assert sprt_version_changed(version_id=v4.pk) is None
    assert SprtTest.objects.running().count() == 0 and SprtTest.objects.filter(new_version=v4).count() == 0


@pytest.mark.django_db
def test_a_first_version_has_nothing_to_be_tested_against(version_factory, bot_factory) -> None:  # type: ignore[no-untyped-def]
    bot = bot_factory()
    retired = version_factory(bot=bot, number=1, status="retired")
    first_active = version_factory(bot=bot, number=2)
    assert previous_active_version(first_active) is None and retired.status == "retired"
    assert sprt_version_changed(version_id=first_active.pk) is None and not SprtTest.objects.exists()


@pytest.mark.django_db
def test_retiring_either_version_cancels_the_test_and_its_pending_batch(two_versions, alice) -> None:  # type: ignore[no-untyped-def]
    new, old = two_versions
    test = sprt_start(new_version=new, batch_games=4, max_games=8)
    batch = test.current_match
    bot_version_retire(version=old, retired_by=alice)
    sprt_version_changed(version_id=old.pk)  # what the hook's task runs
    test.refresh_from_db()
    assert (test.status, test.reason) == ("cancelled", f"{old.label} was retired")
    assert batch is not None and Match.objects.get(pk=batch.pk).status == Match.Status.CANCELLED
    assert sprt_record_match(match_id=batch.pk) is None  # the cancelled batch's message: nothing
    with pytest.raises(Conflict, match="only a running test"):
        sprt_cancel(test=test, reason="again")


@pytest.mark.django_db
def test_the_sweep_cancels_a_test_whose_version_left_play_unnoticed(two_versions) -> None:  # type: ignore[no-untyped-def]
    new, _old = two_versions
    test = sprt_start(new_version=new, batch_games=4, max_games=8)
    BotVersion.objects.filter(pk=new.pk).update(status="retired")  # no message sent
    assert sprt_sweep() == {"folded": 0, "cancelled": 1}
    test.refresh_from_db()
    assert test.status == "cancelled" and "was retired" in test.reason


@pytest.mark.django_db
@override_settings(SPRT_BATCH_ATTEMPTS=2, MATCH_MAX_ATTEMPTS=1)
def test_a_failed_batch_is_tried_again_with_the_same_deals_then_the_test_stops(two_versions) -> None:  # type: ignore[no-untyped-def]
    new, _old = two_versions
    test = sprt_start(new_version=new, batch_games=4, max_games=8)

    def fail(match: Match) -> None:  # the platform could not play it, out of attempts
        claimed = match_claim(match_id=match.pk, worker="test")
        assert claimed is not None
        match_release(match_id=match.pk, attempt=claimed.attempts, error="SandboxUnavailable: no sandbox")

    first = test.current_match
    assert first is not None
    fail(first)
    assert sprt_record_match(match_id=first.pk) is not None
    test.refresh_from_db()
    second = test.current_match
    assert second is not None and second.pk != first.pk and second.seed == first.seed and test.status == "running"
    assert sprt_sweep() == {"folded": 0, "cancelled": 0}  # a pending batch: nothing to do
    fail(second)
    assert sprt_sweep() == {"folded": 1, "cancelled": 0}  # its message lost: the sweep folds it
    test.refresh_from_db()
    assert test.status == "cancelled" and test.games == 0
    assert test.reason.startswith("batch 1 was not played in 2 matches") and "no sandbox" in test.reason


# --- The whole way: upload, validation, the hook, batches on the interactive queue, verdict. ---

WORKER_ENVIRONMENT = {
    "LADDER_ENABLED": "0",  # no placement or ladder matches: the SPRT alone
    "SPRT_BATCH_GAMES": "10",
    "SPRT_MAX_GAMES": "1000",  # at the default elo1 (10) a verdict takes 100-300 games
    "MATCH_RETRY_DELAY_SECONDS": "1",
}


@pytest.fixture
def start_worker(transactional_db, tmp_path) -> Iterator[Callable[[], CeleryProcess]]:  # type: ignore[no-untyped-def]
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    workers: list[CeleryProcess] = []

    def start() -> CeleryProcess:
        workers.append(worker(tmp_path / "worker.log", 1, WORKER_ENVIRONMENT))
        return workers[-1]

    yield start
    for started in workers:
        started.stop(signal.SIGTERM)
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


@pytest.mark.slow
def test_an_uploaded_version_is_tested_against_the_previous_one_by_the_worker(start_worker, alice) -> None:  # type: ignore[no-untyped-def]
    start_worker()
    bot = bot_create(owner=alice, name="alices")
    v1 = bot_version_upload(bot=bot, uploaded_by=alice, filename="bot.py", content=bot_code("random"))
    wait_for(lambda: BotVersion.objects.get(pk=v1.pk).status == "active", "v1 validated")
    v2 = bot_version_upload(bot=bot, uploaded_by=alice, filename="bot.py", content=bot_code("greedy"))
    wait_for(lambda: SprtTest.objects.filter(new_version=v2).exclude(status="running").exists(), "a verdict", 400)
    test = SprtTest.objects.get(new_version=v2)
    assert test.status == "h1", test.pair_counts  # greedy is about +140 Elo over random: H1 within the cap
    assert (test.old_version_id, test.batch_games, test.max_games) == (v1.pk, 10, 1000)
    assert test.games >= 10 and test.pair_counts == kit_sprt_of(test).counts
    assert set(test.matches.values_list("status", flat=True)) == {"finished"}
    assert SprtTest.objects.filter(new_version=v1).count() == 0  # a first version: nothing to test
