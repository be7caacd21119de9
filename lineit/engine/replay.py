"""Replays: one JSON document per game, re-run and verified by the engine alone.

The format is documented in docs/replay-format.md and docs/replay.schema.json.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from .actions import parse_action
from .deal import new_game
from .errors import EngineError, ReplayError
from .forfeits import STAND_IN_KEYED as STAND_IN_KEYED
from .forfeits import STAND_IN_RANDOM as STAND_IN_RANDOM
from .forfeits import STAND_INS as STAND_INS
from .forfeits import Decision, check_moves, forfeit_claims, read_forfeits, read_illegal_actions
from .forfeits import stand_in_action as stand_in_action
from .forfeits import stand_in_seed as stand_in_seed
from .rules import RULES_VERSION
from .state import GameState, shuffled_deck

REPLAY_FORMAT: Final = "lineit-replay"
REPLAY_FORMAT_VERSION: Final = 3
READABLE_FORMAT_VERSIONS: Final = (1, 2, 3)

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
# The platform's signature (lineit.replay_signature), since version 3: the only field a replay
# may hold or not. The engine does not check it; `lineit verify --key` does.
SIGNATURE_FIELD: Final = "signature"


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
    seats were played, so its forfeits stay claims (``verify_replay``). Version 3 added the
    ``signature`` a replay may carry; an older version holds none."""
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
    added = {1: ("stand_in", "illegal_actions", SIGNATURE_FIELD), 2: (SIGNATURE_FIELD,)}.get(version, ())
    for field in added:
        if field in doc:
            raise ReplayError(f"unknown field {field!r} in a version {version} replay")
    if version == 1:
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
    unknown = sorted(str(field) for field in doc if field not in FIELDS and field != SIGNATURE_FIELD)
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
    if not isinstance(doc.get(SIGNATURE_FIELD, {}), Mapping):
        raise ReplayError(f"'{SIGNATURE_FIELD}' must be an object")
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


def verify_replay(document: Mapping[str, Any]) -> Verification:
    """Every action legal, the recorded scores and ranks the ones the engine finds, the forfeits
    consistent with the moves (lineit.engine.forfeits); what the moves cannot show is returned
    as claims. Never raises ReplayError."""
    try:
        doc = upgrade_replay(document)
        _check_header(doc)
        actions = doc["actions"]
        decisions: list[Decision] = []

        def record(number: int, seat: int, before: GameState, action: str) -> None:
            decisions.append(Decision(seat, action, before.legal_actions()))

        state = _run(doc, record)  # the moves first: every later check may read them as well formed
        forfeits = read_forfeits(doc, actions)
        illegal = read_illegal_actions(doc, forfeits)
        drawn = check_moves(doc, forfeits, illegal, decisions)
    except ReplayError as error:
        return Verification(False, str(error))
    scores = state.scores()
    ranks = ranks_with_forfeits(scores, doc["forfeits"])
    if not _ints(doc["scores"]) or doc["scores"] != scores:
        return Verification(False, f"recorded scores {doc['scores']!r} but the game gives {scores}", scores, ranks)
    if not _ints(doc["ranks"]) or doc["ranks"] != ranks:
        return Verification(False, f"recorded ranks {doc['ranks']!r} but the game gives {ranks}", scores, ranks)
    claims = tuple(forfeit_claims(doc, forfeits, illegal, drawn))
    message = f"verified: {len(actions)} actions, scores {scores}"
    if forfeits:
        message += f", ranks {ranks} given the forfeits; unverified: {'; '.join(claims[1:])}"
    return Verification(True, message, scores, ranks, claims)
