"""The phases of a game: which decision the current player faces.

A module of its own so that the state, the observer and the explanations of illegal actions
all read them without importing one another.
"""

from __future__ import annotations

from typing import Final

TAKE: Final = 0  # standard order: take a market card
PLAY: Final = 1  # then play a hand card or pass
CLOSE: Final = 2  # then close the line or pass
TURN: Final = 3  # the bga ruleset's free order: take, play and close in any order
FINAL: Final = 4  # the end-game final plays
OVER: Final = 5
PHASE_NAMES: Final = ("take", "play", "close", "turn", "final", "over")
