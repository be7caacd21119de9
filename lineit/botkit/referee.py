"""The referee: plays the games of a match with one player per entrant.

Failure policy (docs/bot-interface.md, applied the same way everywhere):

* A bot that fails in a game forfeits that game: it ranks last (forfeited seats share the last
  rank) whatever its score, and a stand-in that plays uniformly random legal moves (seeded by
  the deal through a stream of its own, so reproducible) finishes the game in its seat, so the other seats' game is complete.
* Its process is restarted for its next game. After ``max_failures`` failed games it is stopped:
  every remaining game of the match is forfeited the same way without running it.
* No bot process plays two games of one deal: each entrant has one process per lane (its seat
  rotation within the deal: schedule.lane_of), each started from ``Player.fresh()``, so a bot
  that remembers a deal's cards meets that deal again only in another process.
* ``startup_failed`` is the platform's fault: the match stops with PlatformFailure and is not
  held against any bot (the platform retries it).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lineit.engine import RULES_VERSION, explain_illegal_action, new_game, record_replay
from lineit.engine.replay import STAND_IN_KEYED, stand_in_action, stand_in_seed

from .failures import ILLEGAL_MOVE, PROTOCOL, STARTUP_FAILED, STOPPED, TIME_BUDGET, TIMEOUT, BotFailure, Failure
from .limits import Clock, Limits
from .players import Player
from .schedule import GamePlan, MatchSpec, game_plans


class PlatformFailure(Exception):
    """The platform could not run the match (a sandbox that did not start); no bot is blamed.
    ``detail`` is the sandbox's own output, for the operator's log and the command line: not
    part of the message, which a match page shows to everyone."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


@dataclass
class SeatTiming:
    decisions: int = 0
    total_seconds: float = 0.0
    max_seconds: float = 0.0

    def add(self, seconds: float) -> None:
        self.decisions += 1
        self.total_seconds += seconds
        self.max_seconds = max(self.max_seconds, seconds)

    def to_dict(self) -> dict[str, Any]:
        return {"decisions": self.decisions, "total_seconds": self.total_seconds, "max_seconds": self.max_seconds}


@dataclass
class GameRecord:
    index: int
    deal: int
    deck_seed: int
    seats: tuple[int, ...]  # entrant index per seat
    names: list[str]  # per seat
    scores: list[int]
    ranks: list[int]
    forfeits: list[int]
    failures: list[Failure]
    timings: list[SeatTiming]
    replay: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The game as JSON values (``from_dict`` reads it back): what the platform keeps of a
        chunk of a match until the whole match is recorded."""
        return {
            "index": self.index,
            "deal": self.deal,
            "deck_seed": self.deck_seed,
            "seats": list(self.seats),
            "names": list(self.names),
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "forfeits": list(self.forfeits),
            "failures": [failure.to_dict() for failure in self.failures],
            "timings": [timing.to_dict() for timing in self.timings],
            "replay": self.replay,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        return cls(
            index=data["index"],
            deal=data["deal"],
            deck_seed=data["deck_seed"],
            seats=tuple(data["seats"]),
            names=list(data["names"]),
            scores=list(data["scores"]),
            ranks=list(data["ranks"]),
            forfeits=list(data["forfeits"]),
            failures=[Failure(**failure) for failure in data["failures"]],
            timings=[SeatTiming(**timing) for timing in data["timings"]],
            replay=data["replay"],
        )


@dataclass
class MatchResult:
    spec: MatchSpec
    names: list[str]  # per entrant
    tier: str
    limits: Limits
    games: list[GameRecord] = field(default_factory=list)

    @property
    def failures(self) -> list[Failure]:
        return [failure for game in self.games for failure in game.failures]


@dataclass
class _Entrant:
    """One entrant of a match: its players (one per lane, made as needed from the first) share
    its clock and its count of failed games."""

    player: Player  # lane 0's; the others are its fresh() copies
    clock: Clock
    lanes: dict[int, Player] = field(default_factory=dict)
    started: set[int] = field(default_factory=set)  # the lanes whose process is running
    failures: int = 0
    stopped: bool = False

    def __post_init__(self) -> None:
        self.lanes[0] = self.player

    def lane(self, lane: int) -> Player:
        player = self.lanes.get(lane)
        if player is None:
            player = self.lanes[lane] = self.player.fresh()
        return player

    def close(self) -> None:
        for player in self.lanes.values():
            player.close()


def run_match(
    spec: MatchSpec,
    players: Sequence[Player],
    *,
    limits: Limits | None = None,
    tier: str = "in-process",
    on_game: Callable[[GameRecord], None] | None = None,
) -> MatchResult:
    """Play every game of ``spec``; ``players[e]`` is entrant e. Players are closed at the end."""
    if len(players) != spec.num_players:
        raise ValueError(f"{len(players)} players for a match of {spec.num_players} seats")
    limits = limits or Limits()
    entrants = [_Entrant(player, Clock(limits)) for player in players]
    result = MatchResult(spec=spec, names=[p.name for p in players], tier=tier, limits=limits)
    try:
        for plan in game_plans(spec):
            record = play_game(plan, spec, entrants, limits)
            result.games.append(record)
            if on_game is not None:
                on_game(record)
    finally:
        for entrant in entrants:
            entrant.close()
    return result


def _fail(entrant: _Entrant, lane: int, failure: Failure, limits: Limits) -> Failure:
    if failure.kind == STARTUP_FAILED:
        raise PlatformFailure(f"{entrant.player.name}: {failure.message}", failure.stderr_tail)
    entrant.failures += 1
    entrant.lane(lane).close()
    entrant.started.discard(lane)
    if entrant.failures >= limits.max_failures:
        entrant.stopped = True
    return failure


def play_game(plan: GamePlan, spec: MatchSpec, entrants: list[_Entrant], limits: Limits) -> GameRecord:
    n = spec.num_players
    state = new_game(n, spec.ruleset, seed=plan.deck_seed)
    seated = [entrants[e] for e in plan.seats]
    names = [entrant.player.name for entrant in seated]
    failed: dict[int, Failure] = {}
    illegal_actions: list[tuple[int, str]] = []  # (decision, action) of each illegal-move forfeit
    timings = [SeatTiming() for _ in range(n)]

    lane = plan.lane
    players = [entrant.player if entrant.stopped else entrant.lane(lane) for entrant in seated]

    def failure(seat: int, error: BotFailure, decision: int = -1) -> None:
        found = Failure(error.kind, error.message, seat, plan.index, decision, error.stderr_tail)
        failed[seat] = _fail(seated[seat], lane, found, limits)

    for seat, entrant in enumerate(seated):
        if entrant.stopped:
            failed[seat] = Failure(STOPPED, f"stopped after {entrant.failures} failed games", seat, plan.index)
            continue
        info = {
            "seat": seat,
            "num_players": n,
            "ruleset": spec.ruleset,
            "rules_version": RULES_VERSION,
            "game": plan.index,
            "games": spec.games,
            "players": list(names),  # each bot its own: in-process, it may change what it gets
            "limits": limits.to_dict(),
        }
        try:
            if lane not in entrant.started:
                players[seat].start(limits.startup_seconds)
                entrant.started.add(lane)
            players[seat].start_game(info, limits.startup_seconds)
        except BotFailure as error:
            failure(seat, error)

    # the stand-in's own stream, keyed by the deck's seed: its moves tell nothing of the deck's
    stand_in = random.Random(stand_in_seed(STAND_IN_KEYED, plan.deck_seed))
    decision = 0
    while not state.is_over:
        seat = state.current_player
        legal = state.legal_actions()
        action: Any = None
        if seat not in failed:
            entrant = seated[seat]
            observation = state.observation(seat)
            deadline, capped = entrant.clock.deadline()
            started = time.perf_counter()
            try:
                action = players[seat].act(observation, deadline)
                elapsed = time.perf_counter() - started
                if elapsed > deadline:
                    raise BotFailure(TIMEOUT, f"the decision took {elapsed:.3f} s")
                if not isinstance(action, str):
                    raise BotFailure(PROTOCOL, f"act() must return an action string, not {type(action).__name__}")
                # a plain str, as a sandboxed bot's action always is: a subclass's own comparisons
                # and hash would otherwise decide legality and reach the engine
                action = str.__str__(action)
                if action not in legal:
                    illegal_actions.append((decision, action))  # the replay keeps it if it is an action
                    raise BotFailure(ILLEGAL_MOVE, explain_illegal_action(state, action))
            except BotFailure as error:
                elapsed = time.perf_counter() - started
                if error.kind == TIMEOUT:
                    limit = "per-move timeout" if capped else "per-move allowance plus the match time bank"
                    error = BotFailure(
                        TIMEOUT if capped else TIME_BUDGET,
                        f"{error.message}; the {limit} left {deadline:.3f} s",
                        error.stderr_tail,
                    )
                failure(seat, error, decision)
            entrant.clock.spend(elapsed)
            timings[seat].add(elapsed)
        if seat in failed:
            action = stand_in_action(stand_in, legal)
        state.apply(action)
        decision += 1

    forfeits = sorted(seat for seat, found in failed.items())
    meta = {
        "game": plan.index,
        "deal": plan.deal,
        "match_seed": spec.seed,
        "entrants": list(plan.seats),
        "failures": [found.public_dict() for found in failed.values()],
    }
    replay = record_replay(
        state,
        names,
        seed=plan.deck_seed,
        forfeits=forfeits,
        meta=meta,
        stand_in=STAND_IN_KEYED,
        illegal_actions=illegal_actions,
    )
    late: list[Failure] = []
    for seat, entrant in enumerate(seated):
        if seat in failed:
            continue
        outcome = {"seat": seat, "game": plan.index, "scores": list(replay["scores"]), "ranks": list(replay["ranks"])}
        try:
            players[seat].end_game(outcome, limits.startup_seconds)
        except BotFailure as error:
            # The game is over and scored; a failure here counts against the bot's next game.
            found = Failure(error.kind, f"in end_game: {error.message}", seat, plan.index, -1, error.stderr_tail)
            late.append(_fail(entrant, lane, found, limits))
    return GameRecord(
        index=plan.index,
        deal=plan.deal,
        deck_seed=plan.deck_seed,
        seats=plan.seats,
        names=names,
        scores=replay["scores"],
        ranks=replay["ranks"],
        forfeits=forfeits,
        failures=list(failed.values()) + late,
        timings=timings,
        replay=replay,
    )
