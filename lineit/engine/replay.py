"""Replays: one JSON document per game, re-run and verified by the engine alone.

The format is documented in docs/replay-format.md and docs/replay.schema.json.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from .actions import parse_action
from .deal import new_game
from .errors import EngineError, ReplayError
from .rules import RULES_VERSION
from .state import GameState, shuffled_deck

REPLAY_FORMAT: Final = "lineit-replay"
REPLAY_FORMAT_VERSION: Final = 2
READABLE_FORMAT_VERSIONS: Final = (1, 2)

# How a forfeited seat's moves are chosen once its bot failed (docs/replay-format.md, "stand_in"):
# stand_in_action with one generator for the whole game (stand_in_generator), drawn at every
# decision of a forfeited seat in the order of the game. Verification draws the same moves again.
# STAND_IN_KEYED draws from a stream of its own, keyed by the deck's seed through SHA-256: the
# stand-in's public moves say nothing of the generator that shuffled the deck. STAND_IN_RANDOM,
# the stream that shuffled the deck itself, is what older replays name: read, never written.
STAND_IN_KEYED: Final = "uniform-random-keyed"
STAND_IN_RANDOM: Final = "uniform-random"
STAND_INS: Final = (STAND_IN_KEYED, STAND_IN_RANDOM)


def stand_in_generator(stand_in: str, seed: int) -> random.Random:
    """The stand-in's generator for a game dealt from ``seed`` (one of STAND_INS)."""
    if stand_in == STAND_IN_RANDOM:
        return random.Random(seed)
    digest = hashlib.sha256(f"lineit-stand-in:{seed}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


# Every top-level field of the current format, each either recomputed from the moves, checked
# against them, or reported as a claim (docs/replay-format.md, "What verification checks").
FIELDS: Final = (
    "format",
    "format_version",
    "rules_version",
    "ruleset",
    "num_players",
    "players",
    "first_player",
    "seed",
    "deck",
    "actions",
    "stand_in",
    "illegal_actions",
    "forfeits",
    "scores",
    "ranks",
    "meta",
)


def stand_in_action(generator: random.Random, legal: Sequence[str]) -> str:
    """The stand-in's move (STAND_IN_RANDOM): uniformly random among the legal actions."""
    return legal[generator.randrange(len(legal))]


def ranks_with_forfeits(scores: Sequence[int], forfeits: Sequence[int] = ()) -> list[int]:
    """Ranks by score (ties share a rank); forfeited seats rank after everyone else.

    Forfeited seats share the last rank among themselves, whatever their scores.
    """
    forfeited = set(forfeits)
    ranks = []
    finishers = [score for seat, score in enumerate(scores) if seat not in forfeited]
    for seat, score in enumerate(scores):
        if seat in forfeited:
            ranks.append(len(finishers) + 1)
        else:
            ranks.append(1 + sum(other > score for other in finishers))
    return ranks


def record_replay(
    state: GameState,
    players: Sequence[str],
    *,
    seed: int | None = None,
    forfeits: Sequence[int] = (),
    meta: Mapping[str, Any] | None = None,
    stand_in: str | None = None,
    illegal_actions: Sequence[tuple[int, str]] = (),
) -> dict[str, Any]:
    """The replay document of a finished game.

    ``stand_in`` names how the forfeited seats' moves were chosen (STAND_IN_RANDOM, seeded by
    ``seed``), None when the producer does not say; ``illegal_actions`` holds, per illegal-move
    forfeit, the decision and the action string the bot returned, when it is an action of the
    game (``parse_action``): verification checks that it was illegal there."""
    if not state.is_over:
        raise ReplayError("a replay is recorded once the game is over")
    if len(players) != state.num_players:
        raise ReplayError(f"{len(players)} player names for {state.num_players} seats")
    scores = state.scores()
    return {
        "format": REPLAY_FORMAT,
        "format_version": REPLAY_FORMAT_VERSION,
        "rules_version": RULES_VERSION,
        "ruleset": state.ruleset,
        "num_players": state.num_players,
        "players": list(players),
        "first_player": state.history[0][0] if state.history else state.first,
        "seed": seed,
        "deck": list(state.deck),
        "actions": [[seat, action] for seat, action in state.history],
        "stand_in": stand_in,
        "illegal_actions": [
            [decision, action] for decision, action in sorted(illegal_actions) if parse_action(action) is not None
        ],
        "forfeits": sorted(set(forfeits)),
        "scores": scores,
        "ranks": ranks_with_forfeits(scores, forfeits),
        "meta": dict(meta or {}),
    }


def upgrade_replay(document: Mapping[str, Any]) -> dict[str, Any]:
    """Bring an older format version up to the current one.

    Version 1 had no ``stand_in`` and no ``illegal_actions``: it says nothing of how forfeited
    seats were played, so its forfeits stay claims (``verify_replay``)."""
    if not isinstance(document, Mapping):
        raise ReplayError("a replay is a JSON object")
    if document.get("format") != REPLAY_FORMAT:
        raise ReplayError(f"not a Line-it replay (format is {document.get('format')!r}, expected {REPLAY_FORMAT!r})")
    version = document.get("format_version")
    if type(version) is not int or version not in READABLE_FORMAT_VERSIONS:
        raise ReplayError(
            f"replay format version {version!r} is not supported (this engine reads "
            f"{', '.join(map(str, READABLE_FORMAT_VERSIONS))})"
        )
    doc = dict(document)
    if version == 1:
        for field in ("stand_in", "illegal_actions"):
            if field in doc:
                raise ReplayError(f"unknown field {field!r} in a version 1 replay")
        doc["stand_in"] = None
        doc["illegal_actions"] = []
        doc["format_version"] = REPLAY_FORMAT_VERSION
    return doc


def _ints(value: object) -> bool:
    return isinstance(value, list) and all(type(item) is int for item in value)


def _check_header(doc: Mapping[str, Any]) -> None:
    missing = [field for field in FIELDS if field not in doc]
    if missing:
        raise ReplayError(f"the replay lacks the field{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))}")
    unknown = sorted(str(field) for field in doc if field not in FIELDS)
    if unknown:
        raise ReplayError(f"unknown field{'s' * (len(unknown) > 1)} {', '.join(map(repr, unknown))} in a replay")
    if doc["rules_version"] != RULES_VERSION:
        raise ReplayError(f"replay made under rules {doc['rules_version']!r}; this engine plays {RULES_VERSION}")
    seats = doc["num_players"]
    if type(seats) is not int:
        raise ReplayError(f"'num_players' must be an integer, not {seats!r}")
    if type(doc["first_player"]) is not int:
        raise ReplayError(f"'first_player' must be a seat number, not {doc['first_player']!r}")
    players = doc["players"]
    if not isinstance(players, list) or not all(isinstance(name, str) for name in players):
        raise ReplayError("'players' must be a list of names (strings)")
    if len(players) != seats:
        raise ReplayError(f"{len(players)} player names for {seats!r} seats")
    forfeits = doc["forfeits"]
    if (
        not _ints(forfeits)
        or len(set(forfeits)) != len(forfeits)
        or not all(0 <= seat < len(players) for seat in forfeits)
    ):
        raise ReplayError("'forfeits' must be a list of distinct seat numbers")
    if not _ints(doc["deck"]):
        raise ReplayError("'deck' must be a list of card numbers")
    if not isinstance(doc["meta"], Mapping):
        raise ReplayError("'meta' must be an object")
    stand_in = doc["stand_in"]
    if stand_in is not None and not isinstance(stand_in, str):
        raise ReplayError(f"'stand_in' must be a string or null, not {stand_in!r}")
    seed = doc["seed"]
    if seed is not None:
        if type(seed) is not int:
            raise ReplayError("'seed' must be an integer or null")
        if doc["deck"] != shuffled_deck(seed):
            raise ReplayError(f"the deck is not the one seed {seed} deals")


def _run(doc: Mapping[str, Any], visit: Callable[[int, int, GameState, str], None] | None = None) -> GameState:
    """Play the actions of an upgraded document from its deck; ``visit(number, seat, state,
    action)`` sees each legal decision before it is applied."""
    try:
        state = new_game(doc["num_players"], doc["ruleset"], deck=doc["deck"], first_player=doc["first_player"])
    except (KeyError, TypeError) as error:
        raise ReplayError(f"replay is missing or mangles a field: {error!r}") from None
    except EngineError as error:
        raise ReplayError(f"cannot set the game up: {error}") from None
    actions = doc.get("actions")
    if not isinstance(actions, list):
        raise ReplayError("'actions' must be a list of [seat, action] pairs")
    for number, entry in enumerate(actions):
        if not (isinstance(entry, list) and len(entry) == 2):
            raise ReplayError(f"action {number}: expected [seat, action], got {entry!r}")
        seat, action = entry
        if state.is_over:
            raise ReplayError(f"action {number}: the game was already over")
        if type(seat) is not int or seat != state.current_player:
            raise ReplayError(f"action {number}: seat {seat!r} acted but it was seat {state.current_player}'s turn")
        if type(action) is not str:
            raise ReplayError(f"action {number}: {action!r} is not an action string")
        if visit is not None:
            visit(number, seat, state, action)
        try:
            state.apply(action)
        except EngineError as error:
            raise ReplayError(f"action {number}: {error}") from None
    if not state.is_over:
        raise ReplayError(f"the actions stop before the game is over (seat {state.current_player} to play)")
    return state


def replay_game(document: Mapping[str, Any]) -> GameState:
    """Re-run a replay's actions from its deck; raises ReplayError at the first problem."""
    doc = upgrade_replay(document)
    _check_header(doc)
    return _run(doc)


class Verification(NamedTuple):  # a NamedTuple, not a dataclass: importing dataclasses is a fifth of a bot's start-up
    """``ok``: the game replays and every field that can be checked is right. ``claims``: what
    the replay says that the moves cannot show, in words: first, always, who played each seat;
    then each forfeit's cause. The message names the forfeits' claims (the first claim holds for
    every replay and is left out of it)."""

    ok: bool
    message: str
    scores: list[int] | None = None
    ranks: list[int] | None = None
    claims: tuple[str, ...] = ()


class _Forfeit(NamedTuple):
    seat: int
    kind: str | None  # None: the replay records no failure for the seat
    decision: int  # the failed decision, -1 before the game's first


def _forfeits(doc: Mapping[str, Any], actions: list[Any]) -> dict[int, _Forfeit]:
    """Each forfeited seat with its failure from ``meta.failures``; raises ReplayError when
    they do not agree with ``forfeits`` or with the moves."""
    failures = doc["meta"].get("failures")
    forfeits: dict[int, _Forfeit] = {seat: _Forfeit(seat, None, -1) for seat in doc["forfeits"]}
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
        named.add(seat)
        forfeits[seat] = _Forfeit(seat, kind, decision)
    unnamed = sorted(set(forfeits) - named)
    if unnamed:
        raise ReplayError(f"'forfeits' names seat {unnamed[0]}, whose failure 'meta.failures' does not record")
    return forfeits


def _illegal_actions(doc: Mapping[str, Any], forfeits: dict[int, _Forfeit], actions: list[Any]) -> dict[int, str]:
    """``illegal_actions`` by decision, each the decision of an illegal-move forfeit."""
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
        if forfeit is None or forfeit.kind != "illegal_move":
            raise ReplayError(
                f"'illegal_actions' names decision {decision}, where no seat forfeited by an illegal move"
            )
        if decision in found:
            raise ReplayError(f"'illegal_actions' names decision {decision} twice")
        found[decision] = action
    return found


def _who(doc: Mapping[str, Any], seat: int) -> str:
    return f"seat {seat} ({doc['players'][seat]!r})"


def _claims(doc: Mapping[str, Any], forfeits: dict[int, _Forfeit], illegal: dict[int, str], drawn: bool) -> list[str]:
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
        elif forfeit.kind == "illegal_move":
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


def verify_replay(document: Mapping[str, Any]) -> Verification:
    """Every action legal, the recorded scores and ranks the ones the engine finds, the forfeits
    consistent with the moves; what the moves cannot show is returned as claims. Never raises
    ReplayError."""
    try:
        doc = upgrade_replay(document)
        _check_header(doc)
        actions = doc["actions"]
        state = _run(doc)  # the moves first: every later check may read them as well formed
        forfeits = _forfeits(doc, actions)
        illegal = _illegal_actions(doc, forfeits, actions)
        seed, stand_in = doc["seed"], doc["stand_in"]
        drawn = stand_in in STAND_INS and seed is not None and all(f.kind for f in forfeits.values())
        if stand_in is not None and stand_in not in STAND_INS:
            known = " and ".join(repr(name) for name in STAND_INS)
            raise ReplayError(f"stand-in {stand_in!r} is unknown to this engine (it knows {known})")
        if illegal or (drawn and forfeits):
            from_decision = {seat: forfeit.decision for seat, forfeit in forfeits.items()}
            generator = stand_in_generator(stand_in, seed) if drawn else random.Random(0)

            def visit(number: int, seat: int, before: GameState, action: str) -> None:
                legal = before.legal_actions()
                if number in illegal and illegal[number] in legal:
                    raise ReplayError(
                        f"decision {number}: {illegal[number]!r} is legal there, so it was no illegal move"
                    )
                if drawn and seat in from_decision and number >= from_decision[seat]:
                    chosen = stand_in_action(generator, legal)
                    if chosen != action:
                        raise ReplayError(
                            f"action {number}: seat {seat} forfeited at decision {from_decision[seat]}, so the "
                            f"stand-in plays for it, and it plays {chosen!r} here, not {action!r}"
                        )

            _run(doc, visit)
    except ReplayError as error:
        return Verification(False, str(error))
    scores = state.scores()
    ranks = ranks_with_forfeits(scores, doc["forfeits"])
    if not _ints(doc["scores"]) or doc["scores"] != scores:
        return Verification(False, f"recorded scores {doc['scores']!r} but the game gives {scores}", scores, ranks)
    if not _ints(doc["ranks"]) or doc["ranks"] != ranks:
        return Verification(False, f"recorded ranks {doc['ranks']!r} but the game gives {ranks}", scores, ranks)
    claims = tuple(_claims(doc, forfeits, illegal, drawn))
    message = f"verified: {len(actions)} actions, scores {scores}"
    if forfeits:
        message += f", ranks {ranks} given the forfeits; unverified: {'; '.join(claims[1:])}"
    return Verification(True, message, scores, ranks, claims)
