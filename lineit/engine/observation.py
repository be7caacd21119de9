"""What a seat may see (RULES.md, 'What each player may see'): everything but the draw order.

An observation is plain JSON-compatible data. It gives every seat the same public picture:
every line, every hand, the market, each jackpot's cards, score pile sizes, bet tokens, the
cards not yet seen (sorted, so their order tells nothing) and the actions taken since the
seat last acted. The current player's observation carries its legal actions.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from .rules import MAX_PLAYERS, MIN_PLAYERS, RULES_VERSION
from .state import FINAL, PHASE_NAMES, TURN, check_seat, rounds_in_game

if TYPE_CHECKING:
    from .state import GameState

_DIRECTIONS = {1: "up", -1: "down", 0: None}
_ROUNDS = {n: rounds_in_game(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def _player_view(state: GameState, seat: int) -> dict[str, Any]:
    line = state.lines[seat]
    pile_size = len(state.piles[seat])
    tokens = state.tokens[seat]
    return {
        "line": line.cards.copy(),
        "direction": _DIRECTIONS[line.direction],
        "bet": line.bet or None,
        "after_bet": line.after_bet,
        "colour_counts": line.colours.copy(),
        "hand": state.hands[seat].copy(),
        "score_pile": pile_size,
        "tokens": tokens.copy(),
        "score": pile_size + sum(tokens),
    }


# Every observation has these keys, in this order. A new observation is a copy of its seat's
# template (the keys fixed for the whole game filled in) with the rest assigned: with this
# many keys that is about twice as fast as a dict display.
_KEYS = (
    "seat",
    "num_players",
    "ruleset",
    "rules_version",
    "round",
    "rounds",
    "first_player",
    "current_player",
    "phase",
    "turn",
    "final",
    "market",
    "jackpots",
    "players",
    "unseen",
    "draw_count",
    "recent_actions",
    "legal_actions",
)


def _unseen_cards(state: GameState, previous: list[int] | None) -> list[int]:
    """The cards not dealt yet, sorted: the previous list less the cards dealt since (a copy,
    for observations already made share the previous one), or sorted afresh."""
    deck, position = state.deck, state.position
    if previous is None:
        return sorted(deck[position:])
    cards = previous.copy()
    for card in deck[state._unseen_at : position]:
        del cards[bisect_left(cards, card)]
    return cards


def _templates(state: GameState) -> list[dict[str, Any]]:
    templates = []
    for seat in range(state.num_players):
        template = dict.fromkeys(_KEYS)
        template["seat"] = seat
        template["num_players"] = state.num_players
        template["ruleset"] = state.ruleset
        template["rules_version"] = RULES_VERSION
        template["rounds"] = _ROUNDS[state.num_players]
        templates.append(template)
    return templates


def build_observation(state: GameState, seat: object) -> dict[str, Any]:
    """The observation of ``seat``. Parts that did not change since the previous observation
    (a player's view, the unseen cards) are shared between observations: treat an observation
    as read-only. They are copies, never the engine's own lists."""
    if type(seat) is not int or not 0 <= seat < state.num_players:
        seat = check_seat(state, seat)
    views = state._views
    if None in views:
        for other, view in enumerate(views):
            if view is None:
                views[other] = _player_view(state, other)
    unseen = state._unseen_view
    if unseen is None or state._unseen_at != state.position:
        unseen = state._unseen_view = _unseen_cards(state, unseen)
        state._unseen_at = state.position
    jackpots = state._jackpots_view
    if jackpots is None:
        jackpots = state._jackpots_view = [pile.copy() for pile in state.jackpots]
    templates = state._templates
    if templates is None:
        templates = state._templates = _templates(state)
    observation = templates[seat].copy()
    observation["round"] = state.round + 1
    observation["first_player"] = state.first
    observation["current_player"] = state.current_player
    phase = state.phase
    observation["phase"] = PHASE_NAMES[phase]
    if phase == TURN:
        observation["turn"] = {"took": state.took, "played": state.played, "closed": state.closed}
    elif phase == FINAL:
        observation["final"] = {"pass": state.final_pass + 1, "passed": state.passed.copy()}
    observation["market"] = state.market.copy()
    observation["jackpots"] = jackpots
    observation["players"] = views.copy()
    observation["unseen"] = unseen
    observation["draw_count"] = len(unseen)
    history = state.history
    mark = state._marks[seat]
    observation["recent_actions"] = [[who, action] for who, action in history[mark:]] if mark < len(history) else []
    observation["legal_actions"] = state._legal.copy() if seat == state.current_player else []
    return observation
