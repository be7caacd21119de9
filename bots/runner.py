"""The one place where the platform runs bots: every match goes through the sandbox from here.

Bots are untrusted, so nothing else in bots/ or tournaments/ may call a referee directly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.conf import settings

from lineit.botkit.limits import Limits
from lineit.botkit.referee import GameRecord, MatchResult
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource


def sandbox_tier_detect() -> str:
    """The isolation tier this process uses (SANDBOX_TIER, or the best one that works here,
    detected once per process: the sandbox's own decision, as the command line makes it);
    raises SandboxUnavailable when that tier does not work (fail closed)."""
    from lineit.sandbox.tiers import require_tier

    return require_tier()


def sandbox_match_run(
    *,
    spec: MatchSpec,
    sources: Sequence[BotSource],
    limits: Limits | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
    stopped: frozenset[int] = frozenset(),
) -> MatchResult:
    """Play ``spec`` (or its shard) with one sandboxed process per seat, the entrants in
    ``stopped`` stopped from the start. Raises SandboxUnavailable (fail closed)
    and PlatformFailure (the sandbox did not start), which are never held against a bot."""
    from lineit.sandbox import run_sandboxed_match

    return run_sandboxed_match(
        spec,
        list(sources),
        limits=limits,
        on_game=on_game,
        tier=sandbox_tier_detect(),
        pin_cpu=settings.SANDBOX_PIN_CPU,
        stopped=stopped,
    )
