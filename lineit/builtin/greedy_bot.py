"""Greedy: the action with the best immediate score change, nothing more.

The gain of an action is what it scores right now: a jackpot won by a third card of a colour,
the points and bet token of a close (voluntary or forced), and the loss of a failing bet that a
close settles. Ties (most decisions gain nothing now) are broken by a fixed order of preference:
a card onto the line, the smaller the gap to the line's last card the better; then a card into
the hand; then passing; a close that gains nothing comes last. No randomness, so it is
deterministic.
"""

from lineit.engine import COLOUR_INDEX, Line, bet_value


def jackpot_gain(line: Line, jackpots: list[list[int]], card: int) -> int:
    """Cards won by adding ``card`` to ``line``: a third card of its colour wins its jackpot."""
    if card > 100:
        return 0
    colour = COLOUR_INDEX[card]
    return len(jackpots[colour]) if line.colours[colour] == 2 else 0


def gap(line: Line, card: int) -> int:
    """How many numbers the card skips past the line's last number card (0 for a short line)."""
    if card > 100 or line.numbers < 2:
        return 0
    return abs(card - line.last) - 1


def score_action(observation: dict, line: Line, action: str) -> tuple[float, float]:
    """(immediate gain, tie-break preference) of ``action`` for a player whose line is ``line``;
    the greatest pair wins."""
    jackpots = observation["jackpots"]
    words = action.split()
    if words[0] == "take":
        card, where = int(words[1]), words[2]
        if where == "line":
            return jackpot_gain(line, jackpots, card), 3 - gap(line, card) / 100
        if where == "hand":
            return 0, 2
        return line.close_points() + jackpot_gain(Line(), jackpots, card), 0
    if words[0] == "play":
        card = int(words[1])
        if card > 100 and observation["phase"] == "final":
            return -bet_value(card), 0  # a bet played at the very end can only fail
        return jackpot_gain(line, jackpots, card), 3 - gap(line, card) / 100
    if words[0] == "close":
        gain = line.close_points()
        return gain, 1 if gain > 0 else 0
    return 0, 1  # pass


class Bot:
    def start_game(self, info: dict) -> None:
        self.seat = info["seat"]

    def act(self, observation: dict) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        line = Line.from_cards(observation["players"][observation["seat"]]["line"])
        # max() keeps the first of equal keys; legal actions come in the engine's fixed order.
        return max(legal, key=lambda action: score_action(observation, line, action))
