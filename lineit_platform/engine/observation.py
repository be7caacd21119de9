"""What a seat may see (RULES.md, 'What each player may see'): everything but the draw order.

An observation is plain JSON-compatible data. It gives every seat the same public picture:
every line, every hand, the market, each jackpot's cards, score pile sizes, bet tokens, the
cards not yet seen (sorted, so their order tells nothing) and the actions taken since the
seat last acted. The current player's observation carries its legal actions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .rules import RULES_VERSION
from .state import FINAL, PHASE_NAMES, TURN, check_seat, rounds_in_game

if TYPE_CHECKING:
    from .state import GameState

_DIRECTIONS = {1: "up", -1: "down", 0: None}


def build_observation(state: GameState, seat: int) -> dict[str, Any]:
    check_seat(state, seat)
    players = []
    for line, hand, pile, tokens in zip(state.lines, state.hands, state.piles, state.tokens):
        players.append(
            {
                "line": line.cards.copy(),
                "direction": _DIRECTIONS[line.direction],
                "bet": line.bet or None,
                "after_bet": line.after_bet,
                "colour_counts": line.colours.copy(),
                "hand": hand.copy(),
                "score_pile": len(pile),
                "tokens": tokens.copy(),
                "score": len(pile) + sum(tokens),
            }
        )
    phase = state.phase
    unseen = state.deck[state.position :]
    unseen.sort()
    return {
        "seat": seat,
        "num_players": state.num_players,
        "ruleset": state.ruleset,
        "rules_version": RULES_VERSION,
        "round": state.round + 1,
        "rounds": rounds_in_game(state.num_players),
        "first_player": state.first,
        "current_player": state.current_player,
        "phase": PHASE_NAMES[phase],
        "turn": {"took": state.took, "played": state.played, "closed": state.closed} if phase == TURN else None,
        "final": {"pass": state.final_pass + 1, "passed": state.passed.copy()} if phase == FINAL else None,
        "market": state.market.copy(),
        "jackpots": [pile.copy() for pile in state.jackpots],
        "players": players,
        "unseen": unseen,
        "draw_count": len(unseen),
        "recent_actions": [[who, action] for who, action in state.recent_actions(seat)],
        "legal_actions": state.legal_actions() if seat == state.current and phase < 5 else [],
    }
