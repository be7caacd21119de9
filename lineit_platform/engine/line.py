"""A player's line: the cards in the order placed, plus what the rules ask about it."""

from __future__ import annotations

from .cards import COLOUR_INDEX


class Line:
    """Number cards and at most one bet card, built by adding at the end.

    Kept beside ``cards`` so that ``fits`` costs a comparison: the count of number cards,
    the last number card, the direction (+1 ascending, -1 descending, 0 not yet set), the bet
    card (0 for none), how many number cards were placed after the bet, and the count of
    each colour (for the jackpot on the third card of a colour).
    """

    __slots__ = ("after_bet", "bet", "cards", "colours", "direction", "last", "numbers")

    def __init__(self) -> None:
        self.cards: list[int] = []
        self.numbers = 0
        self.last = 0
        self.direction = 0
        self.bet = 0
        self.after_bet = 0
        self.colours = [0, 0, 0, 0]

    @classmethod
    def from_cards(cls, cards: list[int]) -> Line:
        line = cls()
        for card in cards:
            line.add(card)
        return line

    def copy(self) -> Line:
        other = Line.__new__(Line)
        other.cards = self.cards.copy()
        other.numbers = self.numbers
        other.last = self.last
        other.direction = self.direction
        other.bet = self.bet
        other.after_bet = self.after_bet
        other.colours = self.colours.copy()
        return other

    def fits(self, card: int) -> bool:
        if card > 100:
            return self.bet == 0
        if self.numbers < 2:
            return True
        return card > self.last if self.direction > 0 else card < self.last

    def add(self, card: int) -> int:
        """Place a card (it must fit). Returns the colour index whose count just reached
        three (a jackpot), or -1."""
        self.cards.append(card)
        if card > 100:
            self.bet = card
            self.after_bet = 0
            return -1
        if self.numbers == 1:
            self.direction = 1 if card > self.last else -1
        self.numbers += 1
        self.last = card
        if self.bet:
            self.after_bet += 1
        colour = COLOUR_INDEX[card]
        count = self.colours[colour] + 1
        self.colours[colour] = count
        return colour if count == 3 else -1
