"""What an action is worth to us, in points, given the weights of tables/weights.json."""

from __future__ import annotations

from tables import Weights

from lineit.botkit.types import Observation
from lineit.engine import COLOUR_INDEX, Line, bet_value


def action_value(action: str, line: Line, observation: Observation, weights: Weights) -> float:
    rounds_left = observation["rounds"] - observation["round"]
    keep_open = weights["keep_open"] * min(rounds_left, weights["keep_horizon"])
    words = action.split()
    if words[0] == "take":
        card, where = int(words[1]), words[2]
        if where == "line":
            return card_value(card, line, observation, weights)
        if where == "hand":
            return weights["hand_fit"] if card <= 100 and line.fits(card) else weights["hand_loose"]
        return line.close_points() - keep_open  # forced-close
    if words[0] == "play":
        return card_value(int(words[1]), line, observation, weights)
    if words[0] == "close":
        return line.close_points() - keep_open
    return 0.0  # pass


def card_value(card: int, line: Line, observation: Observation, weights: Weights) -> float:
    rounds_left = observation["rounds"] - observation["round"]
    if card > 100:
        bet = bet_value(card)
        return bet / 2 if rounds_left >= 2 * bet else -bet
    value = 1.0
    colour = COLOUR_INDEX[card]
    if line.colours[colour] == 2:
        value += weights["jackpot_share"] * len(observation["jackpots"][colour])
    if line.numbers == 0:
        room = max(card - 1, 100 - card)
    else:
        room = 100 - card if card > line.last else card - 1
    return value + room / weights["room_scale"]
