"""Greedy: the action with the best immediate score change, nothing more.

The gain of an action is what it scores right now: a jackpot won by a third card of a colour,
the points and bet token of a close (voluntary or forced), and the loss of a failing bet that a
close settles. Ties (most decisions gain nothing now) are broken by a fixed order of preference:
a card onto the line, the smaller the gap to the line's last card the better; then a card into
the hand; then passing; a close that gains nothing comes last. No randomness, so it is
deterministic.
"""

from lineit.engine import bet_value

JACKPOT_COLOUR = (-1,) + tuple((n - 1) % 4 for n in range(1, 101)) + (-1,) * 6


def _line_numbers(line: list[int]) -> list[int]:
    return [card for card in line if card <= 100]


def close_gain(player: dict) -> int:
    """Points and bet token of closing this player's line now."""
    numbers = len(_line_numbers(player["line"]))
    gain = max(0, numbers - 3)
    bet = player["bet"]
    if bet:
        value = bet_value(bet)
        gain += value if player["after_bet"] >= value else -value
    return gain


def jackpot_gain(player: dict, jackpots: list[list[int]], card: int, fresh_line: bool = False) -> int:
    """Cards won by adding ``card`` to the line (an empty new line when ``fresh_line``)."""
    if card > 100:
        return 0
    colour = JACKPOT_COLOUR[card]
    count = 0 if fresh_line else player["colour_counts"][colour]
    return len(jackpots[colour]) if count == 2 else 0


def gap(player: dict, card: int) -> int:
    """How many numbers the card skips past the line's last number card (0 for a short line)."""
    numbers = _line_numbers(player["line"])
    if card > 100 or len(numbers) < 2:
        return 0
    return abs(card - numbers[-1]) - 1


def score_action(observation: dict, action: str) -> tuple[float, float]:
    """(immediate gain, tie-break preference); the greatest pair wins."""
    me = observation["players"][observation["seat"]]
    jackpots = observation["jackpots"]
    words = action.split()
    if words[0] == "take":
        card, where = int(words[1]), words[2]
        if where == "line":
            return jackpot_gain(me, jackpots, card), 3 - gap(me, card) / 100
        if where == "hand":
            return 0, 2
        return close_gain(me) + jackpot_gain(me, jackpots, card, fresh_line=True), 0
    if words[0] == "play":
        card = int(words[1])
        if card > 100 and observation["phase"] == "final":
            return -bet_value(card), 0  # a bet played at the very end can only fail
        return jackpot_gain(me, jackpots, card), 3 - gap(me, card) / 100
    if words[0] == "close":
        gain = close_gain(me)
        return gain, 1 if gain > 0 else 0
    return 0, 1  # pass


class Bot:
    def start_game(self, info: dict) -> None:
        self.seat = info["seat"]

    def act(self, observation: dict) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        # max() keeps the first of equal keys; legal actions come in the engine's fixed order.
        return max(legal, key=lambda action: score_action(observation, action))
