"""Heuristic: a one-step look-ahead on a hand-made estimate of what a position is worth.

For every legal action the engine plays it on a copy of the position (``determinize``, ``clone``,
``apply``: the rules are the engine's, never the bot's own) and the bot values its own position
after it (line, hand, points scored right now) as

    points scored now (jackpot, close, bet token)
  + what the line will be worth when closed: number cards now plus the cards it is expected to
    gain, minus the three discarded cards
  + the bet on the line: +X or -X weighted by the chance that X cards follow it
  + the jackpots the line may still win: for each colour short of three, the chance of reaching
    three times the size the jackpot is expected to have
  + the hand: a card that fits the line is a reserve for a turn with nothing to take (and a sure
    final play at the end); a card that fits nowhere is nearly worthless and blocks the hand

and picks the best. The expected growth of a line comes from a small model of the rounds left:
each round shows a market of which some cards fit (the fitting cards still unseen beyond the
line's last card), the bot takes the closest one and the cards it skips are lost. That one
model explains the strategy: start lines near 1 or 100, keep gaps small, choose the direction
from the first two cards, close a line that is stuck (a new line is worth more), bet on fresh
lines with room, take the third card of a colour when its jackpot is big, keep the hand as a
buffer, and near the end cash in fitting hand cards as final plays.

Both rulesets and 2 to 5 players: the bga free order is just more actions to compare (play
before taking, close then start a new line from the market).
"""

import random
from bisect import bisect_left, bisect_right
from math import exp

from lineit.engine import COLOUR_INDEX, GameState, Line, bet_value, determinize
from lineit.engine.actions import ACTIONS, PLAY, TAKE

# Hand-set weights: sensible first guesses, checked by the league but not tuned systematically.
HAND_FIT_VALUE = 0.7  # a hand card that fits the line, while rounds remain
HAND_LOOSE_VALUE = 0.1  # a hand card that does not fit the line
FULL_HAND_PENALTY = 0.4  # a full hand with nothing that fits: the next take may force a close
JACKPOT_SHARE = 0.6  # the jackpot might be won by someone else first
JACKPOT_GROWTH = 0.45  # number cards a jackpot gains per round (about two leftovers over four)
COLOUR_CHOICE = 1.4  # the bot steers towards the colour it needs
BET_IN_HAND_VALUE = 0.2


class Context:
    """What the rest of the game looks like from one position: the number cards still to come
    (``pool``, sorted), the jackpots' sizes and the market's size."""

    def __init__(self, pool: list[int], jackpots: list[int], num_players: int) -> None:
        self.pool = pool
        self.jackpots = jackpots
        self.market_size = num_players + 2
        # Cards a player sees on average when choosing: others may have taken before.
        self.visible = self.market_size - (num_players - 1) / 2

    @classmethod
    def of_observation(cls, observation: dict) -> "Context":
        pool = sorted(card for card in observation["unseen"] if card <= 100)
        return cls(pool, [len(pile) for pile in observation["jackpots"]], observation["num_players"])

    def room(self, line: Line) -> int:
        """Unseen number cards that could still go on the line."""
        pool = self.pool
        if line.numbers == 0:
            return len(pool)
        if line.numbers == 1:
            below = bisect_left(pool, line.last)
            return max(below, len(pool) - below)
        if line.direction > 0:
            return len(pool) - bisect_right(pool, line.last)
        return bisect_left(pool, line.last)

    def growth(self, line: Line, rounds: int) -> float:
        """Expected number of cards the line gains over ``rounds`` rounds."""
        room = float(self.room(line))
        pool = float(len(self.pool))
        visible = self.visible
        gained = 0.0
        for _ in range(rounds):
            if pool < 1 or room < 0.5:
                break
            share = min(1.0, room / pool)
            chance = 1 - (1 - share) ** visible
            gained += chance
            fitting = visible * share
            # The closest fitting card is taken; the room cards it skips are lost, and the
            # other market cards leave the pool (taken by others or sent to the jackpots).
            room -= chance * (1 + room / (fitting + 1)) + (self.market_size - 1) * share
            pool -= self.market_size
        return gained


def jackpot_chance(needed: int, expected_colour_cards: float) -> float:
    """Chance of at least ``needed`` cards of one colour (Poisson)."""
    if needed <= 0:
        return 0.0
    term = exp(-expected_colour_cards)
    below = term
    for k in range(1, needed):
        term *= expected_colour_cards / k
        below += term
    return 1 - below


def position_value(line: Line, hand: list[int], context: Context, rounds: int) -> float:
    """What the line and hand are worth, rounds of takes still to come."""
    growth = context.growth(line, rounds)
    fitting_hand = sum(1 for card in hand if card <= 100 and line.fits(card))
    if rounds == 0:
        # Only the final plays remain: each fitting hand card is played (two passes).
        growth = min(fitting_hand, 2)
    value = max(0.0, line.numbers + growth - 3)
    if line.bet:
        bet = bet_value(line.bet)
        margin = line.after_bet + growth - bet
        chance = 1.0 if margin >= 0 and rounds == 0 else 1 / (1 + exp(-1.6 * (margin + 0.3)))
        if rounds == 0 and margin < 0:
            chance = 0.0
        value += bet * (2 * chance - 1)
    for colour in range(4):
        count = line.colours[colour]
        if count >= 3:
            continue
        chance = jackpot_chance(3 - count, growth * 0.25 * COLOUR_CHOICE)
        size = context.jackpots[colour] + JACKPOT_GROWTH * rounds / 2
        value += JACKPOT_SHARE * chance * size
    if rounds:
        loose = 0
        for card in hand:
            if card > 100:
                value += BET_IN_HAND_VALUE if rounds > 3 else 0.0
            elif line.fits(card):
                value += HAND_FIT_VALUE
            else:
                value += HAND_LOOSE_VALUE
                loose += 1
        if len(hand) == 2 and loose == 2:
            value -= FULL_HAND_PENALTY
    return value


def action_values(observation: dict, world: GameState | None = None) -> dict[str, float]:
    """The value of the bot's own position after each legal action.

    The engine plays each action on a copy of ``world`` (the observation's position rebuilt by
    ``determinize``; the unseen cards' order does not matter here): what it scores now (a
    jackpot, a close, a bet token) is the seat's score change, and the line and hand it leaves
    are valued by ``position_value``. Rounds of takes still to come: after this round's take, or
    with this round's too when the action is not a take and the seat has not taken yet."""
    seat = observation["seat"]
    if world is None:
        world = determinize(observation, random.Random(0))
    phase = observation["phase"]
    final = phase == "final"
    taken = phase in ("play", "close") or bool((observation.get("turn") or {}).get("took"))
    after_take = 0 if final else observation["rounds"] - observation["round"]
    before_take = after_take + (0 if taken or final else 1)
    context = Context.of_observation(observation)
    score = world.scores()[seat]
    values = {}
    for action in observation["legal_actions"]:
        state = world.clone()
        state.apply(action)
        info = ACTIONS[action]  # a legal action: always one of them
        gained = float(state.scores()[seat] - score)
        if final and info.kind == PLAY and info.card > 100:
            gained -= 100  # a bet played at the very end can only fail
        rounds = after_take if info.kind == TAKE else before_take
        values[action] = gained + position_value(state.lines[seat], state.hands[seat], context, rounds)
    return values


def final_play_order(observation: dict) -> str | None:
    """In the final plays, play the card that leaves the other hand card still playable."""
    legal = [a for a in observation["legal_actions"] if a.startswith("play ") and int(a.split()[1]) <= 100]
    if not legal:
        return None
    me = observation["players"][observation["seat"]]
    line = Line.from_cards(me["line"])
    cards = [int(a.split()[1]) for a in legal]
    # Ascending: lower first; descending: higher first; a jackpot comes before all.
    context_jackpots = [len(pile) for pile in observation["jackpots"]]

    def key(card: int) -> tuple[int, int]:
        jackpot = context_jackpots[COLOUR_INDEX[card]] if line.colours[COLOUR_INDEX[card]] == 2 else 0
        order = -card if line.direction >= 0 else card
        return jackpot, order

    return f"play {max(cards, key=key)}"


class Bot:
    def start_game(self, info: dict) -> None:
        self.seat = info["seat"]

    def act(self, observation: dict) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        if observation["phase"] == "final":
            return final_play_order(observation) or "pass"
        values = action_values(observation)
        return max(legal, key=values.__getitem__)  # the first of equal values, in the engine's order
