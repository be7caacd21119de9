"""The 106 cards of Line-it: one data table, so a correction is a one-line change.

Cards are plain integers, which keeps the engine fast and the JSON small:

* ``1`` .. ``100`` are number cards; each has one of four colours, fixed by the number.
* ``101`` .. ``106`` are the six bet cards: values 3, 3, 4, 4, 5, 5.
"""

from __future__ import annotations

from typing import Final

NUMBER_CARDS: Final = tuple(range(1, 101))
BET_CARDS: Final = (101, 102, 103, 104, 105, 106)
ALL_CARDS: Final = NUMBER_CARDS + BET_CARDS
CARD_COUNT: Final = len(ALL_CARDS)

COLOURS: Final = ("red", "blue", "green", "yellow")
JACKPOT_SYMBOLS: Final = ("heart", "diamond", "leaf", "star")

# docs/rules.md, "The cards": the colour of a number card is fixed by ``n mod 4``.
_COLOUR_BY_REMAINDER: Final = {1: "red", 2: "blue", 3: "green", 0: "yellow"}

# Index into COLOURS for every card id (bet cards have no colour: -1).
COLOUR_INDEX: Final[tuple[int, ...]] = (
    (-1,) + tuple(COLOURS.index(_COLOUR_BY_REMAINDER[n % 4]) for n in NUMBER_CARDS) + (-1,) * len(BET_CARDS)
)

# Value of every card id as a bet (0 for number cards).
BET_VALUE: Final[tuple[int, ...]] = (0,) * 101 + (3, 3, 4, 4, 5, 5)


def is_bet(card: int) -> bool:
    """True for the six bet cards."""
    return card > 100


def bet_value(card: int) -> int:
    """The value X of a bet card (3, 4 or 5); 0 for a number card."""
    return BET_VALUE[card]


def colour_of(card: int) -> str | None:
    """The colour name of a number card, ``None`` for a bet card."""
    index = COLOUR_INDEX[card]
    return COLOURS[index] if index >= 0 else None


def card_label(card: int) -> str:
    """A short human label: ``37`` for a number card, ``B4`` for a bet card of value 4."""
    return f"B{BET_VALUE[card]}" if card > 100 else str(card)
