"""Rules versioning: every match and game log stores RULES_VERSION and its ruleset.

Ratings only compare games of one rules version and ruleset. A change to how the engine
plays a game (not to how fast it does it) bumps the version and adds a changelog line.
"""

from __future__ import annotations

from typing import Final

from .cards import CARD_COUNT

RULES_VERSION: Final = "1.0"

RULES_CHANGELOG: Final = (
    (
        "1.0",
        "First implementation of the rules in docs/rules.md (both rulesets, 2-5 players, with the "
        "referee's rulings R1-R15).",
    ),
)

STANDARD: Final = "standard"
BGA: Final = "bga"
RULESETS: Final = (STANDARD, BGA)

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 5


def rounds_in_game(num_players: int) -> int:
    """Rounds a game lasts: it ends when fewer than players + 2 cards are left to deal."""
    return CARD_COUNT // (num_players + 2)
