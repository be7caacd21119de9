"""Tournament formats of Line-it Arena: round robin, Swiss, single and double elimination, each at
tables of 2 to 5 seats. Pure Python: no Django, no database, no I/O.

See docs/tournaments.md for the rules; api.py for the functions the Django app calls.
"""

from .api import (
    bracket_json,
    bracket_state,
    final_standings,
    first_round,
    is_finished,
    max_swiss_rounds,
    next_round,
    planned_rounds,
    seed_order,
    standings,
)
from .model import (
    DOUBLE,
    FORMATS,
    ROUND_ROBIN,
    SINGLE,
    SWISS,
    Entrant,
    EntrantId,
    EntrantResult,
    FormatError,
    MatchOutcome,
    Options,
    Pairing,
    Round,
    Standing,
    TournamentState,
)
from .outcome import GameResult, decide_match, outcome_by_order

__all__ = [
    "DOUBLE",
    "FORMATS",
    "ROUND_ROBIN",
    "SINGLE",
    "SWISS",
    "Entrant",
    "EntrantId",
    "EntrantResult",
    "FormatError",
    "GameResult",
    "MatchOutcome",
    "Options",
    "Pairing",
    "Round",
    "Standing",
    "TournamentState",
    "bracket_json",
    "bracket_state",
    "decide_match",
    "final_standings",
    "first_round",
    "is_finished",
    "max_swiss_rounds",
    "next_round",
    "outcome_by_order",
    "planned_rounds",
    "seed_order",
    "standings",
]
