"""The SPRT of a new version against the previous one (docs/platform.md, "SPRT of a new version").

A test plays one batch at a time: a match of ``batch_games`` games, new (entrant 0) against old
(entrant 1), duplicate deals with the seats rotated, unranked, on the interactive queue. When the
match ends, ``sprt_record_match`` folds its games in with the kit's statistics
(lineit.stats.sprt.Sprt, as `lineit sprt` does: a deal pair is the new version's points over its
two games, a forfeited game a loss) and either ends the test or schedules the next batch. Every
state change is one function here; the tasks (tournaments/tasks.py) only carry ids:

* ``sprt_start``: a test and its first batch;
* ``sprt_record_match``: a batch match ended (finished, failed or cancelled): fold, decide, go on,
  or try the batch again;
* ``sprt_cancel``: stop a running test, its pending batch match cancelled;
* ``sprt_version_changed``: a version became active (start its test when its bot's setting is on,
  ending the test it replaces) or left play (cancel the tests it is in);
* ``sprt_sweep``: the safety net for a lost message.
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
from collections import defaultdict

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from bots.models import Bot, BotVersion
from lineit.botkit.failures import PLATFORM_FAULTS
from lineit.botkit.schedule import MAX_GAMES, MatchSpec
from lineit.stats.sprt import CONTINUE, H0, H1, MOST_GAMES, Bounds, Sprt, batch_seed
from lineit_platform.errors import ApplicationError, Conflict, Forbidden

from ..models import BotSprtSetting, Game, GameFailure, Match, SprtTest
from ..selectors.sprt import bot_tests_new_versions, previous_active_version
from ..signals import sprt_decided
from .matches.states import match_cancel, match_schedule

logger = logging.getLogger(__name__)

NEW, OLD = 0, 1  # entrants of a batch match


def _may_manage(user: AbstractBaseUser | None, bot: Bot) -> None:
    if user is not None and bot.owner_id != user.pk and not getattr(user, "is_staff", False):
        raise Forbidden(f"{bot.name} belongs to someone else")


def _bounds(test: SprtTest) -> Bounds:
    return Bounds(test.elo0, test.elo1, test.alpha, test.beta)


def _finite(value: float) -> float | None:
    return value + 0.0 if math.isfinite(value) else None


@transaction.atomic
def sprt_start(
    *,
    new_version: BotVersion,
    old_version: BotVersion | None = None,
    requested_by: AbstractBaseUser | None = None,
    elo0: float | None = None,
    elo1: float | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    max_games: int | None = None,
    batch_games: int | None = None,
    ruleset: str | None = None,
    seed: int | None = None,
) -> SprtTest:
    """A test of ``new_version`` against ``old_version`` (by default the newest active version of
    its bot before it), its first batch queued after commit. Unset parameters are the kit's
    defaults (lineit.stats.sprt.Bounds) and the SPRT_* settings. ``requested_by``, when given,
    must own the bot or be staff. Refused (ApplicationError, nothing written) with bad parameters,
    a version not active, or a test of the bot already running (Conflict)."""
    bot = Bot.objects.select_for_update().get(pk=new_version.bot_id)  # one running test per bot
    _may_manage(requested_by, bot)
    new_version = BotVersion.objects.select_related("bot").get(pk=new_version.pk)
    if old_version is None:
        old_version = previous_active_version(new_version)
        if old_version is None:
            raise ApplicationError(f"{new_version.label} has no earlier active version to be tested against")
    else:
        old_version = BotVersion.objects.select_related("bot").get(pk=old_version.pk)
    if old_version.bot_id != bot.pk or old_version.pk == new_version.pk:
        raise ApplicationError("a version is tested against another version of the same bot")
    for version in (new_version, old_version):
        if version.status != BotVersion.Status.ACTIVE:
            raise ApplicationError(f"{version.label} is {version.status}; only active versions are tested")
    defaults = Bounds()
    try:
        bounds = Bounds(
            defaults.elo0 if elo0 is None else float(elo0),
            defaults.elo1 if elo1 is None else float(elo1),
            defaults.alpha if alpha is None else float(alpha),
            defaults.beta if beta is None else float(beta),
        )
    except ValueError as error:
        raise ApplicationError(str(error)) from None
    batch = settings.SPRT_BATCH_GAMES if batch_games is None else batch_games
    most = settings.SPRT_MAX_GAMES if max_games is None else max_games
    if not 2 <= batch <= MAX_GAMES or batch % 2:
        raise ApplicationError(f"batch_games must be an even number of games from 2 to {MAX_GAMES} (got {batch})")
    if not batch <= most <= MOST_GAMES:
        raise ApplicationError(f"max_games must be from batch_games ({batch}) to {MOST_GAMES:,} (got {most})")
    ruleset = settings.SPRT_RULESET if ruleset is None else ruleset
    try:
        MatchSpec(2, batch, ruleset)
    except ValueError as error:
        raise ApplicationError(str(error)) from None
    if SprtTest.objects.running().filter(bot=bot).exists():
        raise Conflict(f"{bot.name} has a test running already; cancel it first")
    test = SprtTest.objects.create(
        bot=bot,
        new_version=new_version,
        old_version=old_version,
        requested_by=requested_by,
        ruleset=ruleset,
        elo0=bounds.elo0,
        elo1=bounds.elo1,
        alpha=bounds.alpha,
        beta=bounds.beta,
        batch_games=batch,
        max_games=most,
        seed=secrets.randbits(62) if seed is None else seed,
        pair_counts=[0] * 5,
        llr_lower=bounds.lower,
        llr_upper=bounds.upper,
    )
    _schedule_batch(test)
    logger.info("SPRT %s: %s against %s", test.pk, new_version, old_version)
    return test


def _schedule_batch(test: SprtTest) -> None:
    """The next batch's match: whole deal pairs up to max_games, the seed `lineit sprt` gives it."""
    size = min(test.batch_games, (test.max_games - test.games) // 2 * 2)
    match = match_schedule(
        versions=[test.new_version, test.old_version],
        games=size,
        ruleset=test.ruleset,
        seed=batch_seed(test.seed, test.batches),
        duplicate_deals=True,
        rotate_seats=True,
        ranked=False,
        origin=str(Match.Origin.SPRT),  # str(): the stubs read its label as a tuple
    )
    test.matches.add(match)
    test.current_match = match
    test.batch_attempts += 1
    test.save(update_fields=["current_match", "batch_attempts"])


def _end(test: SprtTest, status: str, reason: str = "") -> None:
    test.status = status
    test.reason = reason[:2000]
    test.current_match = None
    test.finished_at = timezone.now()
    test.save(update_fields=["status", "reason", "current_match", "finished_at"])
    logger.info("SPRT %s ended: %s %s", test.pk, status, reason)
    if status in DECIDED:  # its owner is told (notifications; a cancelled test is not a verdict)
        new, old = test.new_version, test.old_version
        sprt_decided.send(
            sender=SprtTest,
            sprt_id=test.pk,
            owner_id=test.bot.owner_id,
            bot=new.bot.name,
            new_version_number=new.number,
            new_version=new.label,
            old_version=old.label,
            verdict=DECIDED[status],
            games=test.games,
            elo=test.elo,
            elo_interval=(test.elo_low, test.elo_high)
            if test.elo_low is not None and test.elo_high is not None
            else None,
        )


# The verdict a decided test announces (tournaments/signals.py: sprt_decided).
DECIDED = {
    SprtTest.Status.H1: "H1 accepted",
    SprtTest.Status.H0: "H0 accepted",
    SprtTest.Status.UNDECIDED: "undecided",
}


@transaction.atomic
def sprt_record_match(*, match_id: int) -> SprtTest | None:
    """A batch match ended: fold its games in and decide, or schedule the next batch; a failed or
    cancelled one is tried again (SPRT_BATCH_ATTEMPTS matches in all) before the test stops.
    Idempotent: a match that is not its running test's current batch (folded already, a test
    that ended) changes nothing and gives None; so does a match still pending."""
    test = (
        SprtTest.objects.select_for_update()
        .select_related("new_version__bot", "old_version__bot")
        .filter(current_match_id=match_id, status=SprtTest.Status.RUNNING)
        .first()
    )
    if test is None:
        return None
    match = Match.objects.get(pk=match_id)
    if match.is_pending:
        return None
    if match.status != Match.Status.FINISHED:
        if test.batch_attempts >= settings.SPRT_BATCH_ATTEMPTS:
            _end(
                test,
                SprtTest.Status.CANCELLED,
                f"batch {test.batches + 1} was not played in {test.batch_attempts} matches "
                f"(the last, match {match.pk}, {match.status}{': ' + match.error if match.error else ''})",
            )
        else:
            _schedule_batch(test)
        return test
    sprt = Sprt(_bounds(test), list(test.pair_counts))
    _fold(test, sprt, match)
    test.batches += 1
    test.games += match.games
    test.batch_attempts = 0
    test.pair_counts = list(sprt.counts)
    test.score = sprt.score()
    test.llr = sprt.llr()
    elo, low, high = sprt.elo()
    test.elo, test.elo_low, test.elo_high = _finite(elo), _finite(low), _finite(high)
    test.save(
        update_fields=[
            "batches",
            "games",
            "batch_attempts",
            "pair_counts",
            "pairs_left_out",
            "failures_new",
            "failures_old",
            "score",
            "llr",
            "elo",
            "elo_low",
            "elo_high",
        ]
    )
    outcome = sprt.status()
    if outcome == H1:
        _end(test, SprtTest.Status.H1)
    elif outcome == H0:
        _end(test, SprtTest.Status.H0)
    elif test.games + 2 > test.max_games:
        _end(test, SprtTest.Status.UNDECIDED)
    else:
        assert outcome == CONTINUE
        _schedule_batch(test)
    return test


def _fold(test: SprtTest, sprt: Sprt, match: Match) -> None:
    """Add the match's deal pairs to ``sprt`` as lineit.cli.sprt.record_pairs does (the new
    version's points: a win 1, a shared win 1/2, a forfeit 0, as the ranks already say), and
    count each version's forfeits. A deal in which the platform failed (startup_failed) is left
    out whole: a platform failure is never held against a bot."""
    games = list(Game.objects.filter(match=match).order_by("index").values("id", "deal", "seats", "ranks"))
    failures = GameFailure.objects.filter(match=match, seat__gte=0).values_list("game_id", "seat", "kind")
    by_game: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for game_id, seat, kind in failures:
        by_game[game_id].append((seat, kind))
    platform_deals = {game["deal"] for game in games if any(kind in PLATFORM_FAULTS for _, kind in by_game[game["id"]])}
    points: dict[int, float] = {}
    for game in games:
        if game["deal"] in platform_deals:
            continue
        seats, ranks = game["seats"], game["ranks"]
        seat = seats.index(NEW)
        winners = ranks.count(1)
        points[game["deal"]] = points.get(game["deal"], 0.0) + (1.0 / winners if ranks[seat] == 1 else 0.0)
        for failed_seat, _kind in by_game[game["id"]]:
            if seats[failed_seat] == NEW:
                test.failures_new += 1
            else:
                test.failures_old += 1
    for deal_points in points.values():
        sprt.add_pair(deal_points)
    test.pairs_left_out += len(platform_deals)


@transaction.atomic
def sprt_cancel(*, test: SprtTest, reason: str, cancelled_by: AbstractBaseUser | None = None) -> SprtTest:
    """Stop a running test, saying why; its batch match, if still pending, is cancelled. The
    games folded in so far stay. ``cancelled_by``, when given, must own the bot or be staff.
    Conflict when the test is not running."""
    test = SprtTest.objects.select_for_update().select_related("bot").get(pk=test.pk)
    _may_manage(cancelled_by, test.bot)
    if not test.is_running:
        raise Conflict(f"SPRT {test.pk} is {test.status}; only a running test can be cancelled")
    pending = test.current_match
    _end(test, SprtTest.Status.CANCELLED, reason)
    if pending is not None and pending.is_pending:
        with contextlib.suppress(Conflict):  # it ended in the meantime: nothing to stop
            match_cancel(match=pending)
    return test


def sprt_version_changed(*, version_id: int) -> SprtTest | None:
    """A version became active or left play (bots/services.py sends this after commit).

    Left play (retired, rejected): every running test it is in is cancelled. Active: a running
    test of its bot is replaced (cancelled), and, when the bot's setting is on and an earlier
    active version exists, its own test starts; returns it. Idempotent: a version tested once
    already starts nothing."""
    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first()
    if version is None:
        return None
    if version.status != BotVersion.Status.ACTIVE:
        for test in SprtTest.objects.running().filter(bot_id=version.bot_id):
            if version.pk in (test.new_version_id, test.old_version_id):
                sprt_cancel(test=test, reason=f"{version.label} was {version.status}")
        return None
    if SprtTest.objects.filter(new_version=version).exists():
        return None
    for test in SprtTest.objects.running().filter(bot_id=version.bot_id, new_version__number__lt=version.number):
        sprt_cancel(test=test, reason=f"replaced by {version.label}")
    if not bot_tests_new_versions(version.bot_id) or previous_active_version(version) is None:
        return None
    try:
        return sprt_start(new_version=version)
    except Conflict:  # a test started in the meantime (one running per bot)
        return None
    except IntegrityError:
        return None


@transaction.atomic
def bot_sprt_setting_set(*, bot: Bot, test_new_versions: bool, changed_by: AbstractBaseUser) -> BotSprtSetting:
    """Whether the bot's new versions are tested against the previous one (its owner or staff)."""
    _may_manage(changed_by, bot)
    setting, _ = BotSprtSetting.objects.update_or_create(bot=bot, defaults={"test_new_versions": test_new_versions})
    return setting


def sprt_sweep() -> dict[str, int]:
    """The safety net (beat, every SWEEP_INTERVAL_SECONDS): fold in a batch whose match ended
    unnoticed (its message lost), and cancel a test one of whose versions left play unnoticed."""
    counts = {"folded": 0, "cancelled": 0}
    for test in SprtTest.objects.running().select_related("current_match", "new_version", "old_version"):
        gone = [v for v in (test.new_version, test.old_version) if v.status != BotVersion.Status.ACTIVE]
        if gone:
            try:
                sprt_cancel(test=test, reason=f"{gone[0].label} was {gone[0].status}")
                counts["cancelled"] += 1
            except Conflict:
                pass
        elif test.current_match is not None and not test.current_match.is_pending:
            counts["folded"] += sprt_record_match(match_id=test.current_match.pk) is not None
    return counts
