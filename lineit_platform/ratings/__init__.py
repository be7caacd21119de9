"""Rating maths as a pure library: no Django, no I/O (see PLATFORM-NOTES.md, "Elo for games of 2 to 5
players"). The platform stores results; this package turns ordered results into ratings."""

from .elo import (
    K_ESTABLISHED,
    K_PROVISIONAL,
    PROVISIONAL_GAMES,
    START_RATING,
    EloTable,
    RatingChange,
    expected_score,
    game_deltas,
    k_factor,
    pair_score,
)

__all__ = [
    "K_ESTABLISHED",
    "K_PROVISIONAL",
    "PROVISIONAL_GAMES",
    "START_RATING",
    "EloTable",
    "RatingChange",
    "expected_score",
    "game_deltas",
    "k_factor",
    "pair_score",
]
