"""A player's line and the rules of a line, each written once: which cards fit, placing a card
(direction, bet, the third card of a colour) and closing (bet token, discards, points).

The game state places and closes through ``Line``; bots use the same class (exported by
``lineit.engine``) to try actions out on a copy of their line.
"""

from __future__ import annotations

from typing import Any, Final

from .actions import TAKE_ACTIONS
from .cards import BET_VALUE, COLOUR_INDEX

# Per line shape (direction, last number, bet or not), computed once and shared by every line
# of that shape: ``fit_table[card]`` says whether a card fits, ``take_table[hand_room][card]`` lists the
# take actions for that card when the hand has room (1) or is full (0). They make the legal
# actions of a decision a table lookup per market card, the engine's hottest loop.
FitTable = tuple[bool, ...]
TakeTable = tuple[tuple[str, ...], ...]
_TABLES: dict[int, tuple[FitTable, tuple[TakeTable, TakeTable]]] = {}


def line_tables(direction: int, last: int, bet: int) -> tuple[FitTable, tuple[TakeTable, TakeTable]]:
    """The ``fit_table`` and ``take_table`` of a line with this direction, last number and bet."""
    if direction == 0:
        last = 0  # with fewer than two numbers every number fits, whatever the last one is
    key = last * 8 + (direction + 1) * 2 + (1 if bet else 0)
    tables = _TABLES.get(key)
    if tables is None:
        tables = _TABLES[key] = _build_tables(direction, last, bet)
    return tables


# Per card (index 0 unused): the one-card pieces the tables are sliced from.
_YES: Final = (True,) * len(TAKE_ACTIONS)
_NO: Final = (False,) * len(TAKE_ACTIONS)
_LINE: Final = tuple((names[0],) for names in TAKE_ACTIONS)
_HAND: Final = tuple((names[1],) for names in TAKE_ACTIONS)
_FORCED: Final = tuple((names[2],) for names in TAKE_ACTIONS)
_BOTH: Final = tuple(names[:2] for names in TAKE_ACTIONS)


def _build_tables(direction: int, last: int, bet: int) -> tuple[FitTable, tuple[TakeTable, TakeTable]]:
    # Number cards 1..100 fit in one run: all of them with no direction yet, those above
    # ``last`` going up, those below it going down. Bet cards 101..106 fit when no bet is there.
    if direction == 0:
        low, high = 1, 101
    elif direction > 0:
        low, high = last + 1, 101
    else:
        low, high = 1, max(last, 1)

    def table(fit: tuple[object, ...], unfit: tuple[object, ...]) -> tuple[Any, ...]:
        bets = unfit[101:] if bet else fit[101:]
        return unfit[:low] + fit[low:high] + unfit[high:101] + bets

    return table(_YES, _NO), (table(_LINE, _FORCED), table(_BOTH, _HAND))


EMPTY_TABLES: Final = line_tables(0, 0, 0)
DISCARDED_ON_CLOSE: Final = 3  # a closed line's first three number cards leave the game


class Line:
    """Number cards and at most one bet card, built by adding at the end.

    Kept beside ``cards`` so that ``fits`` costs a lookup: the count of number cards, the last
    number card, the direction (+1 ascending, -1 descending, 0 not yet set), the bet card (0 for
    none), how many number cards were placed after the bet, the count of each colour (for the
    jackpot on the third card of a colour) and the tables of the line's shape (see above).
    """

    __slots__ = ("after_bet", "bet", "cards", "colours", "direction", "fit_table", "last", "numbers", "take_table")

    def __init__(self) -> None:
        self.cards: list[int] = []
        self.numbers = 0
        self.last = 0
        self.direction = 0
        self.bet = 0
        self.after_bet = 0
        self.colours = [0, 0, 0, 0]
        self.fit_table, self.take_table = EMPTY_TABLES

    @classmethod
    def from_cards(cls, cards: list[int]) -> Line:
        """The line these cards make, placed in this order (each must fit)."""
        line = cls()
        for card in cards:
            line.add(card)
        return line

    def copy(self) -> Line:
        other = Line()
        other.cards = self.cards.copy()
        other.numbers = self.numbers
        other.last = self.last
        other.direction = self.direction
        other.bet = self.bet
        other.after_bet = self.after_bet
        other.colours = self.colours.copy()
        other.fit_table = self.fit_table
        other.take_table = self.take_table
        return other

    def fits(self, card: int) -> bool:
        """Whether ``card`` fits at the end of this line."""
        return self.fit_table[card]

    def add(self, card: int) -> int:
        """Place a card at the end (it must fit). Returns the colour index whose count just
        reached three, which wins that colour's jackpot, or -1."""
        self.cards.append(card)
        if card > 100:
            self.bet = card
            self.after_bet = 0
            self.fit_table, self.take_table = line_tables(self.direction, self.last, card)
            return -1
        numbers = self.numbers
        self.numbers = numbers + 1
        if numbers == 1:
            self.direction = 1 if card > self.last else -1
        if self.bet:
            self.after_bet += 1
        if numbers:  # with no number before, every number still fits: the tables stay
            self.fit_table, self.take_table = line_tables(self.direction, card, self.bet)
        self.last = card
        colour = COLOUR_INDEX[card]
        colours = self.colours
        count = colours[colour] = colours[colour] + 1
        return colour if count == 3 else -1

    def bet_token(self) -> int:
        """The token the bet would settle as now: +X with at least X number cards after it,
        -X with fewer; 0 without a bet."""
        bet = self.bet
        if not bet:
            return 0
        value = BET_VALUE[bet]
        return value if self.after_bet >= value else -value

    def close_points(self) -> int:
        """What closing the line now would score: its number cards past the first three, plus
        the bet token."""
        return max(0, self.numbers - DISCARDED_ON_CLOSE) + self.bet_token()

    def close(self, tokens: list[int], out: list[int], pile: list[int]) -> None:
        """Close the line and leave it empty, in place: the bet token goes to ``tokens``, the
        bet card and the first three number cards ``out`` of the game, the other numbers to the
        score ``pile``."""
        cards = self.cards
        if self.bet:
            tokens.append(self.bet_token())
            out.append(self.bet)
            cards = [card for card in cards if card <= 100]
        out.extend(cards[:DISCARDED_ON_CLOSE])
        pile.extend(cards[DISCARDED_ON_CLOSE:])
        self.cards = []
        self.numbers = self.last = self.direction = self.bet = self.after_bet = 0
        self.colours = [0, 0, 0, 0]
        self.fit_table, self.take_table = EMPTY_TABLES
