"""run_sandboxed_match: a whole match, every bot in its own sandbox, the engine here."""

from __future__ import annotations

import os
from collections.abc import Callable

from lineit.botkit.limits import Limits
from lineit.botkit.players import StoppedPlayer
from lineit.botkit.referee import GameRecord, MatchResult, run_match
from lineit.botkit.schedule import MatchSpec, most_decisions
from lineit.botkit.sources import BotSource

from .cpus import claim_cpu, release_cpu
from .player import SandboxedPlayer
from .tiers import require_tier
from .turns import TurnGate, default_cpu_seconds


def run_sandboxed_match(
    spec: MatchSpec,
    sources: list[BotSource],
    *,
    limits: Limits | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
    tier: str | None = None,
    pin_cpu: bool = True,
    stopped: frozenset[int] = frozenset(),
) -> MatchResult:
    """Play ``spec`` with ``sources[e]`` as entrant e, each bot in its own sandbox.

    Raises SandboxUnavailable when no tier works (or ``tier`` was asked for and does not);
    ``result.tier`` names the tier used. With ``pin_cpu`` the calling thread and every bot it
    starts share one CPU, which makes each decision's round trip several times cheaper and
    keeps a multi-threaded bot from using more CPU than its wall time: a parallel worker
    (botkit/parallel.py) is pinned to its own CPU already, and so its games stay on it.
    The entrants in ``stopped`` (a shard that begins after they failed too often) start no
    sandbox: their games are forfeited as stopped.
    """
    limits = limits or Limits()
    chosen = require_tier(tier)
    cpu_seconds = default_cpu_seconds(limits, most_decisions(spec.num_players, spec.games))
    gate = TurnGate()
    previous_affinity, claim = _pin_to_one_cpu() if pin_cpu else (None, None)
    players = [
        StoppedPlayer(source.name, limits.max_failures)
        if entrant in stopped
        else SandboxedPlayer(source, limits, tier=chosen, cpu_seconds=cpu_seconds, gate=gate)
        for entrant, source in enumerate(sources)
    ]
    try:
        return run_match(spec, players, limits=limits, tier=chosen, on_game=on_game)
    finally:
        for player in players:
            player.cleanup()
        if previous_affinity is not None:
            os.sched_setaffinity(0, previous_affinity)
        release_cpu(claim)


def _pin_to_one_cpu() -> tuple[set[int] | None, int | None]:
    """Pin the calling thread (and so the bots it spawns) to one of its allowed CPUs, one that no
    other match on the host holds while there is one (cpus.py: claim_cpu). The previous affinity
    and the claim's descriptor, to restore and release when the match ends."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except OSError:
        return None, None
    cpu, claim = claim_cpu(allowed)
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:
        release_cpu(claim)
        return None, None
    return set(allowed), claim
