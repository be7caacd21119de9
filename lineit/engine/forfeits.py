"""Forfeits in a replay: the failure kinds and where each can happen, the stand-in that plays a
forfeited seat, and what the moves of a game show of its forfeits (docs/replay-format.md, "What
verification checks").

Why a bot failed leaves no trace in the moves (a timeout, a crash), but where the stand-in played
does: from a forfeit's decision on, every move of its seat is the stand-in's; and a seat whose
moves are the stand-in's for longer than a bot of its own could match by chance was played by
it, whatever the replay says. What the moves cannot show stays the producer's word, which the
platform's signature carries (lineit.replay_signature).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple

from .actions import parse_action
from .errors import ReplayError

# The failure kinds: lineit.botkit.failures says what each means and whose fault it is.
STARTUP_FAILED: Final = "startup_failed"
LOAD: Final = "load"
TIMEOUT: Final = "timeout"
TIME_BUDGET: Final = "time_budget"
CPU_LIMIT: Final = "cpu_limit"
MEMORY: Final = "memory"
CRASH: Final = "crash"
EXCEPTION: Final = "exception"
EXITED: Final = "exited"
PROTOCOL: Final = "protocol"
ILLEGAL_MOVE: Final = "illegal_move"
STOPPED: Final = "stopped"

# Where a failure of each kind can happen: before play (the bot's start-up and the game's start,
# decision -1), at a decision of its seat (its index into the actions), or either. No replay
# holds a startup_failed: the sandbox's fault stops the match unplayed (referee.PlatformFailure).
BEFORE_PLAY: Final = "before play"
AT_A_DECISION: Final = "at a decision"
EITHER: Final = "either"
FAILURE_PHASES: Final[Mapping[str, str]] = {
    LOAD: BEFORE_PLAY,  # loading is the start-up: a bot that loaded is not loaded again mid-game
    STOPPED: BEFORE_PLAY,  # stopped for the rest of the match: from a game's start
    TIMEOUT: EITHER,  # a decision, or start_game
    TIME_BUDGET: AT_A_DECISION,  # only decisions spend the match's time bank
    CPU_LIMIT: EITHER,
    MEMORY: EITHER,
    CRASH: EITHER,
    EXCEPTION: EITHER,
    EXITED: EITHER,
    PROTOCOL: EITHER,
    ILLEGAL_MOVE: AT_A_DECISION,  # an action returned for a decision
}

# How a forfeited seat's moves are chosen once its bot failed (docs/replay-format.md, "stand_in"):
# stand_in_action with one generator for the whole game (random.Random(stand_in_seed(...))),
# drawn at every decision of a forfeited seat in the order of the game. Verification draws the
# same moves again. STAND_IN_KEYED draws from a stream of its own, keyed by the deck's seed
# through SHA-256: the stand-in's public moves say nothing of the generator that shuffled the
# deck. STAND_IN_RANDOM drew from that generator itself (random.Random(seed)): older replays
# name it, and it is still verified, never written.
STAND_IN_KEYED: Final = "uniform-random-keyed"
STAND_IN_RANDOM: Final = "uniform-random"
STAND_INS: Final = (STAND_IN_KEYED, STAND_IN_RANDOM)


def stand_in_seed(stand_in: str, seed: int) -> int:
    """The seed of the stand-in's generator in a game dealt from ``seed`` (a stand-in of STAND_INS)."""
    if stand_in == STAND_IN_RANDOM:
        return seed
    return int.from_bytes(hashlib.sha256(f"lineit-stand-in:{seed}".encode()).digest()[:8], "big")


# A seat whose own moves are the stand-in's for more than this many bits (the product of the
# numbers of legal actions of the moves above 2**EVIDENCE_BITS) was played by the stand-in: a bot
# that does not see the stand-in's generator plays such a run with a chance below
# 2**-EVIDENCE_BITS, and a game offers about 500 places to start one.
EVIDENCE_BITS: Final = 40
_EVIDENCE: Final = 2**EVIDENCE_BITS


def stand_in_action(generator: random.Random, legal: Sequence[str]) -> str:
    """The stand-in's move (STAND_IN_RANDOM): uniformly random among the legal actions."""
    return legal[generator.randrange(len(legal))]


class StandInStream:
    """The moves stand_in_action draws from one random.Random(seed) (seed: stand_in_seed), as a position in the
    generator's stream of 32-bit words, so that a hypothesis (the stand-in played this seat from
    there) forks it for the price of an integer, where copying the generator costs 45 us.

    CPython's randrange(n) takes the top n.bit_length() bits of the next word and draws again
    while that is n or more; tests/engine/test_engine_forfeits.py checks the two agree."""

    __slots__ = ("_generator", "_words", "position")

    def __init__(self, seed: int, *, _shared: tuple[random.Random, list[int]] | None = None) -> None:
        self._generator, self._words = _shared if _shared is not None else (random.Random(seed), [])
        self.position = 0

    def fork(self) -> StandInStream:
        copy = StandInStream(0, _shared=(self._generator, self._words))
        copy.position = self.position
        return copy

    def choose(self, legal: Sequence[str]) -> str:
        count = len(legal)
        shift = 32 - count.bit_length()
        words = self._words
        while True:
            if self.position == len(words):
                words.append(self._generator.getrandbits(32))
            drawn = words[self.position] >> shift
            self.position += 1
            if drawn < count:
                return legal[drawn]


class Forfeit(NamedTuple):
    seat: int
    kind: str | None  # None: the replay records no failure for the seat
    decision: int  # the failed decision, -1 before the game's first


class Decision(NamedTuple):
    """A decision of the game as it was replayed: who made it, what it was, what was legal."""

    seat: int
    action: str
    legal: list[str]


def read_forfeits(doc: Mapping[str, Any], actions: list[Any]) -> dict[int, Forfeit]:
    """Each forfeited seat with its failure from ``meta.failures``; raises ReplayError when they
    do not agree with ``forfeits``, with the moves, or with where a failure of its kind can be."""
    failures = doc["meta"].get("failures")
    forfeits: dict[int, Forfeit] = {seat: Forfeit(seat, None, -1) for seat in doc["forfeits"]}
    if failures is None:
        return forfeits
    if not isinstance(failures, list):
        raise ReplayError("'meta.failures' must be a list")
    named: set[int] = set()
    for failure in failures:
        seat = failure.get("seat") if isinstance(failure, Mapping) else None
        kind = failure.get("kind") if isinstance(failure, Mapping) else None
        decision = failure.get("decision", -1) if isinstance(failure, Mapping) else None
        if type(seat) is not int or not isinstance(kind, str) or type(decision) is not int:
            raise ReplayError(f"a failure in 'meta.failures' needs a seat, a kind and a decision: {failure!r}")
        if seat not in forfeits:
            raise ReplayError(f"'meta.failures' has a failure of seat {seat}, which 'forfeits' does not name")
        if seat in named:
            raise ReplayError(f"'meta.failures' has two failures of seat {seat}: a seat forfeits once")
        if not -1 <= decision < len(actions):
            raise ReplayError(f"seat {seat}'s failure is at decision {decision}, which the game does not have")
        if decision >= 0 and actions[decision][0] != seat:
            raise ReplayError(
                f"seat {seat}'s failure is at decision {decision}, which was seat {actions[decision][0]}'s"
            )
        _check_kind(doc, failure, seat, kind, decision)
        named.add(seat)
        forfeits[seat] = Forfeit(seat, kind, decision)
    unnamed = sorted(set(forfeits) - named)
    if unnamed:
        raise ReplayError(f"'forfeits' names seat {unnamed[0]}, whose failure 'meta.failures' does not record")
    return forfeits


def _check_kind(doc: Mapping[str, Any], failure: Mapping[str, Any], seat: int, kind: str, decision: int) -> None:
    """A known kind, where a failure of that kind can happen, in this game."""
    phase = FAILURE_PHASES.get(kind)
    if kind == STARTUP_FAILED:
        raise ReplayError(
            f"seat {seat}'s failure is a {STARTUP_FAILED}, the platform's fault, which stops a match "
            "before it is played: no replay holds one"
        )
    if phase is None:
        raise ReplayError(
            f"seat {seat}'s failure is of an unknown kind, {kind[:40]!r} (the kinds are {', '.join(FAILURE_PHASES)})"
        )
    if decision == -1 and phase == AT_A_DECISION:
        raise ReplayError(
            f"seat {seat}'s {kind} failure is before its first decision, but {kind} happens only at a decision"
        )
    if decision >= 0 and phase == BEFORE_PLAY:
        why = "a stopped bot is stopped from the game's start" if kind == STOPPED else "a bot is loaded at its start"
        raise ReplayError(
            f"seat {seat}'s {kind} failure is at decision {decision}, but {kind} happens only before play "
            f"(decision -1): {why}"
        )
    game = doc["meta"].get("game")
    if type(game) is int and type(failure.get("game")) is int and failure["game"] != game:
        raise ReplayError(f"seat {seat}'s failure is of game {failure['game']}, but this replay is game {game}")
    if kind == STOPPED and game == 0:
        raise ReplayError(
            f"seat {seat} is stopped in game 0, but a bot is stopped only after failing in earlier games of its match"
        )


def read_illegal_actions(doc: Mapping[str, Any], forfeits: Mapping[int, Forfeit]) -> dict[int, str]:
    """``illegal_actions`` by decision, each the decision of an illegal-move forfeit and an
    action of the game (the referee keeps no other text a bot returned)."""
    entries = doc["illegal_actions"]
    if not isinstance(entries, list):
        raise ReplayError("'illegal_actions' must be a list of [decision, action] pairs")
    found: dict[int, str] = {}
    at = {forfeit.decision: forfeit for forfeit in forfeits.values() if forfeit.decision >= 0}
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) == 2 and type(entry[0]) is int and type(entry[1]) is str):
            raise ReplayError(f"'illegal_actions': expected [decision, action], got {entry!r}")
        decision, action = entry
        forfeit = at.get(decision)
        if forfeit is None or forfeit.kind != ILLEGAL_MOVE:
            raise ReplayError(
                f"'illegal_actions' names decision {decision}, where no seat forfeited by an illegal move"
            )
        if decision in found:
            raise ReplayError(f"'illegal_actions' names decision {decision} twice")
        if parse_action(action) is None:
            raise ReplayError(
                f"'illegal_actions' holds {action[:40]!r} at decision {decision}, which is not an action of the "
                "game: a replay keeps only those"
            )
        found[decision] = action
    return found


def check_moves(
    doc: Mapping[str, Any], forfeits: Mapping[int, Forfeit], illegal: Mapping[int, str], decisions: Sequence[Decision]
) -> bool:
    """What the moves show of the forfeits: each illegal action illegal at its decision; every
    move of a forfeited seat from its failed decision on the stand-in's; and no seat played by
    the stand-in where the replay says the seat played itself. Returns whether the forfeited
    seats' moves were checked (a known stand-in, a seed and each forfeit's failure recorded);
    raises ReplayError."""
    for number, action in illegal.items():
        if action in decisions[number].legal:
            raise ReplayError(f"decision {number}: {action!r} is legal there, so it was no illegal move")
    seed: int | None = doc["seed"]
    stand_in: str | None = doc["stand_in"]
    if stand_in is not None and stand_in not in STAND_INS:
        known = " and ".join(repr(name) for name in STAND_INS)
        raise ReplayError(f"stand-in {stand_in!r} is unknown to this engine (it knows {known})")
    if seed is None or any(forfeit.kind is None for forfeit in forfeits.values()):
        return False  # what the stand-in drew, or where it began, is unknown
    starts = {seat: forfeit.decision for seat, forfeit in forfeits.items()}
    # A replay that names no stand-in (format 1) was written when the stand-in drew from the deck's
    # own generator.
    stream_seed = stand_in_seed(stand_in or STAND_IN_RANDOM, seed)
    if stand_in is not None:
        _check_stand_in_moves(decisions, starts, stream_seed)
    # Whatever the replay says of its stand-in: a run that long is no bot's own play.
    _check_own_moves(decisions, starts, stream_seed)
    return stand_in is not None


def _check_stand_in_moves(decisions: Sequence[Decision], starts: Mapping[int, int], seed: int) -> None:
    stream = StandInStream(seed)
    for number, (seat, action, legal) in enumerate(decisions):
        start = starts.get(seat)
        if start is not None and number >= start:
            chosen = stream.choose(legal)
            if chosen != action:
                where = f"at decision {start}" if start >= 0 else "before its first decision"
                raise ReplayError(
                    f"action {number}: seat {seat} forfeited {where}, so the stand-in plays for it, and it "
                    f"plays {chosen!r} here, not {action!r}"
                )


def _check_own_moves(decisions: Sequence[Decision], starts: Mapping[int, int], seed: int) -> None:
    """Every decision a seat made itself, says the replay, is tried as the stand-in's first: the
    stand-in's stream as it stood there (drawn for the forfeits before it), forked, plays that
    seat from there on against its moves, while the forfeited seats draw as they did."""
    stream = StandInStream(seed)
    for number, (seat, _, legal) in enumerate(decisions):
        start = starts.get(seat)
        if start is None or number < start:
            _stand_in_run(decisions, starts, seat, number, stream.fork())
        else:
            stream.choose(legal)


def _stand_in_run(
    decisions: Sequence[Decision],
    starts: Mapping[int, int],
    seat: int,
    begin: int,
    stream: StandInStream,
) -> None:
    """Raise ReplayError when ``seat``'s moves from ``begin`` on are the stand-in's for more
    than EVIDENCE_BITS bits, before the replay says the stand-in began playing it."""
    own_until = starts.get(seat, len(decisions))
    evidence, moves = 1, 0
    for number in range(begin, len(decisions)):
        who, action, legal = decisions[number]
        if who == seat:
            if number >= own_until or stream.choose(legal) != action:
                return
            moves += 1
            evidence *= len(legal)
            if evidence > _EVIDENCE:
                said = (
                    f"not from decision {own_until} as the replay says"
                    if seat in starts
                    else "which the replay does not say"
                )
                raise ReplayError(
                    f"seat {seat} was played by the stand-in from decision {begin} on, {said}: its {moves} moves "
                    f"from there to decision {number} are the ones the stand-in draws, which a bot playing "
                    f"for itself matches with a chance below 1 in 2**{EVIDENCE_BITS}"
                )
        elif who in starts and number >= starts[who]:
            stream.choose(legal)


def _who(doc: Mapping[str, Any], seat: int) -> str:
    return f"seat {seat} ({doc['players'][seat]!r})"


def forfeit_claims(
    doc: Mapping[str, Any], forfeits: Mapping[int, Forfeit], illegal: Mapping[int, str], drawn: bool
) -> list[str]:
    """What the replay says that the moves cannot show, in words: who played each seat, and
    each forfeit's cause (the moves show only that the stand-in played from there on)."""
    claims = ["who played each seat (players, meta), the producer's word"]
    for seat in sorted(forfeits):
        forfeit = forfeits[seat]
        if forfeit.kind is None:
            claims.append(f"{_who(doc, seat)} forfeited, the producer's word (no failure recorded)")
            continue
        at = f"at decision {forfeit.decision}" if forfeit.decision >= 0 else "before its first decision"
        if forfeit.decision in illegal:
            why = f"{illegal[forfeit.decision]!r}, which it returned, is illegal there (checked)"
        elif forfeit.kind == ILLEGAL_MOVE:
            why = "what it returned is not an action, so the replay does not hold it"
        else:
            why = "a failure of this kind leaves no trace in the moves"
        moves = (
            "its moves from there on are the stand-in's (checked)"
            if drawn
            else "its moves from there on were not checked (the replay names no stand-in, or no seed)"
        )
        claims.append(f"{_who(doc, seat)} forfeited ({forfeit.kind} {at}), the referee's word: {why}; {moves}")
    return claims
