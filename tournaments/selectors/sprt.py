"""Read-only queries about SPRT tests (tournaments/models/sprt.py) that the pages, the live JSON and
the API share: a version's latest test, the version a new one is tested against, a bot's setting,
and the one builder of a test's summary (``sprt_summary``). Nothing here writes."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from bots.models import BotVersion
from lineit.stats.sprt import PAIR_SCORES
from tournaments.models import BotSprtSetting, SprtTest

VERDICTS = {
    SprtTest.Status.RUNNING: "running",
    SprtTest.Status.H1: "H1 accepted: the new version is stronger",
    SprtTest.Status.H0: "H0 accepted: the new version is not stronger",
    SprtTest.Status.UNDECIDED: "undecided: the game cap was reached before the test decided",
    SprtTest.Status.CANCELLED: "cancelled",
}


def sprt_tests_queryset() -> Any:
    return SprtTest.objects.select_related("bot", "new_version__bot", "old_version__bot")


def version_sprt(version_id: int) -> SprtTest | None:
    """The newest test of this version against an earlier one (it the new version), or None."""
    return sprt_tests_queryset().filter(new_version_id=version_id).order_by("-id").first()


def versions_sprt(version_ids: Iterable[int]) -> dict[int, SprtTest]:
    """The newest test of each of these versions as the new version, in one query."""
    found: dict[int, SprtTest] = {}
    for test in sprt_tests_queryset().filter(new_version_id__in=list(version_ids)).order_by("-id"):
        found.setdefault(test.new_version_id, test)
    return found


def previous_active_version(version: BotVersion) -> BotVersion | None:
    """The version a new one is tested against: the newest active version of its bot before it."""
    return (
        BotVersion.objects.select_related("bot")
        .filter(bot_id=version.bot_id, status=BotVersion.Status.ACTIVE, number__lt=version.number)
        .order_by("-number")
        .first()
    )


def bot_tests_new_versions(bot_id: int) -> bool:
    """The bot's setting: whether a new version is tested against the previous one (default on)."""
    setting = BotSprtSetting.objects.filter(bot_id=bot_id).values_list("test_new_versions", flat=True).first()
    return True if setting is None else setting


def _elo_text(value: float | None, infinite: str) -> str:
    return infinite if value is None else f"{value:+.0f}"


def sprt_elo(test: SprtTest) -> tuple[float, float, float]:
    """The Elo estimate and its interval as numbers, the infinite ones included."""
    if test.pairs == 0:
        return 0.0, -math.inf, math.inf
    elo = test.elo if test.elo is not None else (math.inf if test.score >= 0.5 else -math.inf)
    low = test.elo_low if test.elo_low is not None else -math.inf
    high = test.elo_high if test.elo_high is not None else math.inf
    return elo, low, high


def sprt_text(test: SprtTest) -> str:
    """One line on where the test stands, for the live page."""
    head = f"{test.games} games, {test.pairs} deal pairs"
    if test.pairs:
        elo = _elo_text(test.elo, "+inf" if test.score >= 0.5 else "-inf")
        interval = f"{_elo_text(test.elo_low, '-inf')} to {_elo_text(test.elo_high, '+inf')}"
        head += f"; Elo {elo} (95%: {interval}), LLR {test.llr:.2f} in [{test.llr_lower:.2f}, {test.llr_upper:.2f}]"
    verdict = VERDICTS[SprtTest.Status(test.status)]
    if test.status == SprtTest.Status.CANCELLED and test.reason:
        verdict += f": {test.reason}"
    return f"{head}. {verdict[0].upper()}{verdict[1:]}."


def llr_position(test: SprtTest) -> float:
    """Where the LLR stands between its bounds, 0 (lower) to 1 (upper), clamped: the page's bar."""
    span = test.llr_upper - test.llr_lower
    return min(1.0, max(0.0, (test.llr - test.llr_lower) / span)) if span > 0 else 0.5


def sprt_summary(test: SprtTest) -> dict[str, Any]:
    """A test as the API and the pages show it (one builder for both)."""
    return {
        "id": test.pk,
        "status": test.status,
        "verdict": VERDICTS[SprtTest.Status(test.status)],
        "reason": test.reason,
        "new_version": test.new_version_id,
        "new_label": test.new_version.label,
        "old_version": test.old_version_id,
        "old_label": test.old_version.label,
        "ruleset": test.ruleset,
        "elo0": test.elo0,
        "elo1": test.elo1,
        "alpha": test.alpha,
        "beta": test.beta,
        "batch_games": test.batch_games,
        "max_games": test.max_games,
        "seed": test.seed,
        "games": test.games,
        "pairs": test.pairs,
        "pair_counts": dict(zip([f"{2 * score:g}" for score in PAIR_SCORES], test.pair_counts, strict=True)),
        "pairs_left_out": test.pairs_left_out,
        "failures": {"new": test.failures_new, "old": test.failures_old},
        "score": test.score,
        "llr": test.llr,
        "llr_bounds": [test.llr_lower, test.llr_upper],
        "elo": test.elo,
        "elo_interval": [test.elo_low, test.elo_high],
        "current_match": test.current_match_id,
        "created_at": test.created_at,
        "finished_at": test.finished_at,
        "state": test.live_state,
        "text": sprt_text(test),
    }
