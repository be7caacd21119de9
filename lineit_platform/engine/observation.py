"""What a seat may see (RULES.md, 'What each player may see'): everything but the draw order.

An observation is plain JSON-compatible data. It gives every seat the same public picture:
every line, every hand, the market, each jackpot's cards, score pile sizes, bet tokens, the
cards not yet seen (sorted, so their order tells nothing) and the actions taken since the
seat last acted. The current player's observation carries its legal actions.
"""

from __future__ import annotations

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


def build_observation(state: GameState, seat: int) -> dict[str, Any]:
    """The observation of ``seat``. Parts that did not change since the previous observation
    (a player's view, the unseen cards) are shared between observations: treat an observation
    as read-only. They are copies, never the engine's own lists."""
    if seat.__class__ is not int or not 0 <= seat < state.num_players:
        check_seat(state, seat)
    views = state._views
    players = []
    for other, view in enumerate(views):
        if view is None:
            view = views[other] = _player_view(state, other)
        players.append(view)
    unseen = state._unseen_view
    if unseen is None:
        unseen = state._unseen_view = sorted(state.deck[state.position :])
    jackpots = state._jackpots_view
    if jackpots is None:
        jackpots = state._jackpots_view = [pile.copy() for pile in state.jackpots]
    phase = state.phase
    history = state.history
    mark = state._marks[seat]
    return {
        "seat": seat,
        "num_players": state.num_players,
        "ruleset": state.ruleset,
        "rules_version": RULES_VERSION,
        "round": state.round + 1,
        "rounds": _ROUNDS[state.num_players],
        "first_player": state.first,
        "current_player": state.current_player,
        "phase": PHASE_NAMES[phase],
        "turn": {"took": state.took, "played": state.played, "closed": state.closed} if phase == TURN else None,
        "final": {"pass": state.final_pass + 1, "passed": state.passed.copy()} if phase == FINAL else None,
        "market": state.market.copy(),
        "jackpots": jackpots,
        "players": players,
        "unseen": unseen,
        "draw_count": len(unseen),
        "recent_actions": [[who, action] for who, action in history[mark:]] if mark < len(history) else [],
        "legal_actions": state._legal.copy() if seat == state.current_player else [],
    }
