"""Why an action is illegal, in words a bot author can act on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import actions as A
from .cards import card_label
from .phases import CLOSE, FINAL, OVER, PLAY, TAKE, TURN

if TYPE_CHECKING:
    from .state import GameState


def _line_words(state: GameState, seat: int) -> str:
    line = state.lines[seat]
    if not line.cards:
        return "your line is empty"
    direction = {1: "ascending", -1: "descending", 0: "without a direction yet"}[line.direction]
    last = f", last number {line.last}" if line.last else ""
    bet = f", it already holds bet {card_label(line.bet)}" if line.bet else ""
    return f"your line is {direction}{last}{bet}"


SHOWN_ACTION = 60  # characters of an illegal action quoted in the explanation


def _quoted(action: object) -> str:
    """The action as the bot gave it, cut short: it may be anything up to a frame's size."""
    if isinstance(action, str) and len(action) > SHOWN_ACTION:
        return f"{action[:SHOWN_ACTION]!r}... ({len(action)} characters)"
    return repr(action)


def explain_illegal(state: GameState, action: object) -> str:
    legal = state.legal_actions()
    shown = ", ".join(legal[:12]) + (" ..." if len(legal) > 12 else "")
    quoted = _quoted(action)
    if state.phase == OVER:
        return f"{quoted}: the game is over"
    info = A.parse_action(action)
    if info is None:
        return (
            f"{quoted} is not an action (expected e.g. 'take 37 line', 'play 12', 'close', 'pass'); legal now: {shown}"
        )
    seat = state.current_player
    phase = state.phase
    reason = "it is not allowed at this point"
    if info.kind == A.TAKE:
        if phase not in (TAKE, TURN) or (phase == TURN and state.took):
            reason = "you already took a market card this turn" if phase != FINAL else "the game is in its final plays"
        elif info.card not in state.market:
            reason = f"{card_label(info.card)} is not in the market {[card_label(c) for c in state.market]}"
        elif info.destination == A.TO_LINE:
            reason = f"{card_label(info.card)} does not fit: {_line_words(state, seat)}"
        elif info.destination == A.TO_HAND:
            reason = "your hand already holds 2 cards"
        else:
            reason = "a forced close happens only when the card fits neither your line nor your hand"
    elif info.kind == A.PLAY:
        if phase == TAKE:
            reason = "take a market card first"
        elif phase == CLOSE or (phase == TURN and state.played):
            reason = "you already played or passed your hand card this turn"
        elif info.card not in state.hands[seat]:
            reason = f"{card_label(info.card)} is not in your hand {[card_label(c) for c in state.hands[seat]]}"
        else:
            reason = f"{card_label(info.card)} does not fit: {_line_words(state, seat)}"
    elif info.kind == A.CLOSE:
        if phase in (TAKE, PLAY):
            reason = "take a card and play or pass first" if phase == TAKE else "play a hand card or pass first"
        elif phase == FINAL:
            reason = "every line closes by itself after the final plays"
        elif phase == TURN and state.closed:
            reason = "you already closed your line this turn"
        else:
            reason = "a line with no cards cannot be closed"
    elif info.kind == A.PASS:
        reason = "you must take a market card first" if phase in (TAKE, TURN) else reason
    return f"{quoted} is illegal: {reason}; legal now: {shown}"
