"""Rebuild a playable game from an observation, with the hidden draw order guessed.

Search bots use this: the observation hides only the order of the draw pile, so shuffling
the unseen cards with the bot's own random generator gives one possible world
("determinization") in which the engine can play ahead. Score pile cards are face down and
never affect play, so the cards not accounted for elsewhere stand in for them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .cards import ALL_CARDS
from .errors import InvalidSetup
from .line import Line
from .phases import FINAL, OVER, PHASE_NAMES
from .state import GameState


def determinize(observation: Mapping[str, Any], rng: random.Random) -> GameState:
    """A GameState consistent with ``observation``, its unseen cards shuffled by ``rng``."""
    try:
        return _rebuild(observation, rng)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise InvalidSetup(f"not a Line-it observation: {error!r}") from None


def _rebuild(obs: Mapping[str, Any], rng: random.Random) -> GameState:
    n = obs["num_players"]
    unseen = list(obs["unseen"])
    rng.shuffle(unseen)
    unseen_set = set(unseen)
    deck = [card for card in ALL_CARDS if card not in unseen_set] + unseen
    state = GameState(n, obs["ruleset"], deck, obs["first_player"], deal=False)
    players = obs["players"]
    state.lines = [Line.from_cards(list(p["line"])) for p in players]
    state.hands = [list(p["hand"]) for p in players]
    state.tokens = [list(p["tokens"]) for p in players]
    state.market = list(obs["market"])
    state.jackpots = [list(pile) for pile in obs["jackpots"]]
    visible = unseen_set.union(state.market, *state.hands, *state.jackpots, *(line.cards for line in state.lines))
    elsewhere = [card for card in ALL_CARDS if card not in visible]
    state.piles = []
    for player in players:
        size = player["score_pile"]
        state.piles.append(elsewhere[:size])
        del elsewhere[:size]
    state.out = elsewhere
    state.position = len(state.deck) - len(unseen)
    state.round = obs["round"] - 1
    phase = PHASE_NAMES.index(obs["phase"])
    state.phase = phase
    state.current_player = obs["current_player"] if phase != OVER else -1
    state.is_over = phase == OVER
    state.turn_index = (state.current_player - state.first) % n if phase < FINAL else n
    turn = obs.get("turn") or {}
    state.took = bool(turn.get("took", False))
    state.played = bool(turn.get("played", False))
    state.closed = bool(turn.get("closed", False))
    final = obs.get("final") or {}
    state.final_pass = final.get("pass", 1) - 1
    state.passed = list(final.get("passed", [False] * n))
    state.final_index = (state.current_player - state.first) % n if phase == FINAL else 0
    state.history = []
    state._legal = []
    state._recompute_legal()
    return state
