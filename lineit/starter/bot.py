"""A starter bot for Line-it Arena: change it, test it, upload it (README.md says how).

It values each legal action by what it is likely worth in points and plays the best one. The
rules of a line (what fits, what closing scores) come from the engine, the very one the referee
uses, which is importable inside the sandbox too.

Where things are documented (docs/ of the Line-it Arena repository, or `lineit rules`):
- the two shapes of a bot, start_game and end_game: docs/bot-interface.md, "The two shapes of a bot";
- every key of the observation: docs/bot-interface.md, "The observation", and the typed
  structures in lineit.botkit.types (Observation, PlayerView, GameInfo, ...);
- the actions ("take 37 line", "play 104", "close", "pass"): docs/bot-interface.md, "Actions";
- time and memory limits, and what a failure costs: docs/bot-interface.md, "Time and memory
  limits" and "Failures and the failure policy";
- the rules of the game, and the referee's rulings: docs/rules.md.
"""

from __future__ import annotations

import random

from lineit.botkit.types import GameInfo, GameResult, Observation
from lineit.engine import COLOUR_INDEX, Line, bet_value

KEEP_OPEN = 1.0  # what one more round with the line open is worth, in points (a guess to tune)
ROOM_SCALE = 10  # numbers left beyond a line's last card that are worth one point (another guess)
KEEP_HORIZON = 8  # rounds ahead that keeping a line open is counted for


class Bot:
    def __init__(self) -> None:
        # One instance plays every game of a match; it is made again after a failed game.
        self.rng = random.Random(0)

    def start_game(self, info: GameInfo) -> None:
        # Seats rotate between games: read info["seat"] every game. Seeding from the game and the
        # seat makes a match replay the same way every time.
        self.rng = random.Random(f"starter:{info['game']}:{info['seat']}")

    def act(self, observation: Observation) -> str:
        # Return one of observation["legal_actions"], exactly; anything else forfeits the game.
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        me = observation["players"][observation["seat"]]
        line = Line.from_cards(me["line"])
        rounds_left = observation["rounds"] - observation["round"]
        values = {action: action_value(action, line, observation, rounds_left) for action in legal}
        best = max(values.values())
        # Ties are broken at random (seeded above), so the bot is not predictable.
        return self.rng.choice([action for action in legal if values[action] == best])

    def end_game(self, result: GameResult) -> None:
        # A learning bot would look at result["scores"] and result["ranks"] here.
        pass


def action_value(action: str, line: Line, observation: Observation, rounds_left: int) -> float:
    """Roughly how many points ``action`` should bring, now and when the line closes."""
    words = action.split()
    if words[0] == "take":
        card, where = int(words[1]), words[2]
        if where == "line":
            return card_value(card, line, observation, rounds_left)
        if where == "hand":
            # A hand card is a point later if it still fits the line then.
            return 0.5 if card <= 100 and line.fits(card) else 0.1
        # forced-close: the line closes now, whatever it scores, and the card starts a new one.
        return line.close_points() - KEEP_OPEN * min(rounds_left, KEEP_HORIZON)
    if words[0] == "play":
        return card_value(int(words[1]), line, observation, rounds_left)
    if words[0] == "close":
        # Closing scores the line now and starts afresh; keeping it open may bring more cards.
        return line.close_points() - KEEP_OPEN * min(rounds_left, KEEP_HORIZON)
    return 0.0  # pass


def card_value(card: int, line: Line, observation: Observation, rounds_left: int) -> float:
    """What putting ``card`` at the end of the line is worth."""
    if card > 100:
        # A bet of X wins X with at least X number cards after it, and loses X otherwise.
        bet = bet_value(card)
        return bet / 2 if rounds_left >= 2 * bet else -bet
    value = 1.0  # one more number card: a point once the line has more than three
    colour = COLOUR_INDEX[card]
    if line.colours[colour] == 2:  # the third card of a colour wins its jackpot
        value += len(observation["jackpots"][colour])
    # The more numbers are left beyond the card, the longer the line can grow: start lines near
    # 1 or 100, and keep the steps small.
    return value + room_after(card, line) / ROOM_SCALE


def room_after(card: int, line: Line) -> int:
    """How many numbers are left beyond ``card`` in the direction the line would run."""
    if line.numbers == 0:
        return max(card - 1, 100 - card)  # the second card will choose the direction
    up = card > line.last
    return 100 - card if up else card - 1
