"""An example Line-it bot: one step of look-ahead with the engine, and a simple value of a line.

Run it locally against the built-in bots:

    lineit match docs/example_bot.py random --games 200
    lineit match docs/example_bot.py heuristic --games 200 --replays out/
    lineit show out/game-0000.json --seat 0

The idea: for every legal action, play it on a copy of the game (the engine is importable
inside the sandbox) and score the position that results for us. The score of a position is
our points so far plus what our open line is likely to be worth when it closes. Because a turn
is cut into small decisions (take, then play, then close), looking one decision ahead is enough
to compare "close now" with "keep the line open".
"""

from __future__ import annotations

import random

from lineit.botkit.types import GameInfo, GameResult, Observation  # the observation's keys, typed
from lineit.engine import GameState, determinize

BET_VALUES = {101: 3, 102: 3, 103: 4, 104: 4, 105: 5, 106: 5}
FUTURE_DISCOUNT = 0.6  # we do not get every fitting card we hope for: others take cards too


class Bot:
    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start_game(self, info: GameInfo) -> None:
        # Seeding by game and seat makes a match replay the same way.
        self.rng = random.Random(f"example:{info['game']}:{info['seat']}")

    def act(self, observation: Observation) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        seat = observation["seat"]
        # A copy of the game as we see it; only the order of the draw pile is guessed, and no
        # single decision depends on it.
        state = determinize(observation, self.rng)
        best, best_value = legal[0], float("-inf")
        for action in legal:
            after = state.clone()
            after.apply(action)
            value = position_value(after, seat, observation)
            if value > best_value:
                best, best_value = action, value
        return best

    def end_game(self, result: GameResult) -> None:
        pass  # a learning bot would look at result["scores"] here


def position_value(state: GameState, seat: int, observation: Observation) -> float:
    """Our points so far, plus what our open line and hand should bring."""
    banked = len(state.piles[seat]) + sum(state.tokens[seat])
    if state.is_over:
        return banked
    return banked + line_value(state, seat, observation)


def line_value(state: GameState, seat: int, observation: Observation) -> float:
    line = state.lines[seat]
    numbers = [card for card in line.cards if card <= 100]
    expected_more = expected_additions(state, seat, observation)
    # When the line closes, its first three number cards are discarded and the rest score.
    value = max(0.0, len(numbers) + expected_more - 3)
    if line.bet:
        # A bet of X wins X with at least X number cards after it, and loses X otherwise.
        needed = BET_VALUES[line.bet] - line.after_bet
        if needed <= 0:
            value += BET_VALUES[line.bet]
        else:
            chance = min(1.0, expected_more / needed) ** 2
            value += BET_VALUES[line.bet] * (2 * chance - 1)
    value += jackpot_hopes(state, seat)
    # A hand card that still fits our line is a point we can play later.
    value += 0.4 * sum(1 for card in state.hands[seat] if card <= 100 and line.fits(card))
    return value


def expected_additions(state: GameState, seat: int, observation: Observation) -> float:
    """How many more number cards our line may still get before the game ends."""
    line = state.lines[seat]
    pool = [card for card in observation["unseen"] if card <= 100]
    if not pool:
        return 0.0
    fitting = sum(1 for card in pool if line.fits(card))
    rounds_left = observation["rounds"] - observation["round"]
    market_size = state.num_players + 2
    # Chance that a round's market shows at least one card that fits.
    per_round = 1 - (1 - fitting / len(pool)) ** market_size
    return FUTURE_DISCOUNT * rounds_left * per_round


def jackpot_hopes(state: GameState, seat: int) -> float:
    """A colour with two cards in our line is one card away from its jackpot."""
    line = state.lines[seat]
    hope = 0.0
    for colour, count in enumerate(line.colours):
        if count == 2:
            hope += 0.3 * len(state.jackpots[colour])
    return hope
