"""Replays: one JSON document per game, re-run and verified by the engine alone.

The format is documented in docs/replay-format.md and docs/replay.schema.json.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .deal import new_game
from .errors import EngineError, ReplayError
from .rules import RULES_VERSION
from .state import GameState, shuffled_deck

REPLAY_FORMAT: Final = "lineit-replay"
REPLAY_FORMAT_VERSION: Final = 1


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
) -> dict[str, Any]:
    """The replay document of a finished game."""
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
        "forfeits": sorted(set(forfeits)),
        "scores": scores,
        "ranks": ranks_with_forfeits(scores, forfeits),
        "meta": dict(meta or {}),
    }


def upgrade_replay(document: Mapping[str, Any]) -> dict[str, Any]:
    """Bring an older format version up to the current one (version 1 is the first)."""
    if not isinstance(document, Mapping):
        raise ReplayError("a replay is a JSON object")
    if document.get("format") != REPLAY_FORMAT:
        raise ReplayError(f"not a Line-it replay (format is {document.get('format')!r}, expected {REPLAY_FORMAT!r})")
    version = document.get("format_version")
    if version != REPLAY_FORMAT_VERSION:
        raise ReplayError(
            f"replay format version {version!r} is not supported (this engine reads {REPLAY_FORMAT_VERSION})"
        )
    return dict(document)


def _check_header(doc: Mapping[str, Any]) -> None:
    if doc.get("rules_version") != RULES_VERSION:
        raise ReplayError(f"replay made under rules {doc.get('rules_version')!r}; this engine plays {RULES_VERSION}")
    seats = doc.get("num_players")
    players = doc.get("players")
    if not isinstance(players, list) or not all(isinstance(name, str) for name in players):
        raise ReplayError("'players' must be a list of names (strings)")
    if len(players) != seats:
        raise ReplayError(f"{len(players)} player names for {seats!r} seats")
    forfeits = doc.get("forfeits", [])
    if (
        not isinstance(forfeits, list)
        or len(set(forfeits)) != len(forfeits)
        or not all(type(seat) is int and 0 <= seat < len(players) for seat in forfeits)
    ):
        raise ReplayError("'forfeits' must be a list of distinct seat numbers")
    seed = doc.get("seed")
    if seed is not None:
        if type(seed) is not int:
            raise ReplayError("'seed' must be an integer or null")
        if doc.get("deck") != shuffled_deck(seed):
            raise ReplayError(f"the deck is not the one seed {seed} deals")


def replay_game(document: Mapping[str, Any]) -> GameState:
    """Re-run a replay's actions from its deck; raises ReplayError at the first problem."""
    doc = upgrade_replay(document)
    _check_header(doc)
    try:
        state = new_game(doc["num_players"], doc["ruleset"], deck=doc["deck"], first_player=doc.get("first_player", 0))
    except (KeyError, TypeError) as error:
        raise ReplayError(f"replay is missing or mangles a field: {error!r}") from None
    except EngineError as error:
        raise ReplayError(f"cannot set the game up: {error}") from None
    actions = doc.get("actions")
    if not isinstance(actions, list):
        raise ReplayError("'actions' must be a list of [seat, action] pairs")
    for number, entry in enumerate(actions):
        if not (isinstance(entry, (list, tuple)) and len(entry) == 2):
            raise ReplayError(f"action {number}: expected [seat, action], got {entry!r}")
        seat, action = entry
        if state.is_over:
            raise ReplayError(f"action {number}: the game was already over")
        if seat != state.current_player:
            raise ReplayError(f"action {number}: seat {seat!r} acted but it was seat {state.current_player}'s turn")
        try:
            state.apply(action)
        except EngineError as error:
            raise ReplayError(f"action {number}: {error}") from None
    if not state.is_over:
        raise ReplayError(f"the actions stop before the game is over (seat {state.current_player} to play)")
    return state


@dataclass(frozen=True)
class Verification:
    ok: bool
    message: str
    scores: list[int] | None = None
    ranks: list[int] | None = None


def verify_replay(document: Mapping[str, Any]) -> Verification:
    """Every action legal, and the recorded scores and ranks are the ones the engine finds."""
    try:
        state = replay_game(document)
    except ReplayError as error:
        return Verification(False, str(error))
    scores = state.scores()
    forfeits = document.get("forfeits") or []
    ranks = ranks_with_forfeits(scores, forfeits)
    if document.get("scores") != scores:
        return Verification(
            False, f"recorded scores {document.get('scores')} but the game gives {scores}", scores, ranks
        )
    if document.get("ranks") != ranks:
        return Verification(False, f"recorded ranks {document.get('ranks')} but the game gives {ranks}", scores, ranks)
    return Verification(True, f"verified: {len(document['actions'])} actions, scores {scores}", scores, ranks)
