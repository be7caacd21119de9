"""Tournament formats of Line-it Arena: round robin, Swiss, single and double elimination, each at
tables of 2 to 5 seats. Pure Python: no Django, no database, no I/O.

See docs/tournaments.md for the rules (and "Adding a format"); tournament.py for the functions
the Django app and the CLI call; registry.py for what a format is.
"""

# The built-in formats, each registering itself when imported, in the order every face lists
# them (the API's choices, the admin, `lineit tournament --format`): a new format's module is
# added here. Imported before anything else, so that nothing registers one out of turn.
# isort: off
from . import roundrobin, swiss, single, double  # noqa: F401
# isort: on

from .double import DOUBLE
from .model import (
    FORMAT_OPTIONS,
    Entrant,
    EntrantId,
    EntrantResult,
    FormatError,
    MatchOutcome,
    Option,
    Options,
    Pairing,
    Round,
    Standing,
    TournamentState,
    for_any_field,
)
from .outcome import GameResult, decide_match, outcome_by_order
from .registry import (
    FORMAT_CHOICES,
    TournamentFormat,
    all_formats,
    check_options,
    format_names,
    get_format,
    option_readers,
    register,
    unregister,
)
from .roundrobin import ROUND_ROBIN
from .single import SINGLE
from .swiss import SWISS, max_swiss_rounds
from .tournament import (
    bracket_json,
    bracket_state,
    final_standings,
    first_round,
    is_finished,
    next_round,
    planned_rounds,
    seed_order,
    standings,
)

__all__ = [
    "DOUBLE",
    "FORMAT_CHOICES",
    "FORMAT_OPTIONS",
    "ROUND_ROBIN",
    "SINGLE",
    "SWISS",
    "Entrant",
    "EntrantId",
    "EntrantResult",
    "FormatError",
    "GameResult",
    "MatchOutcome",
    "Option",
    "Options",
    "Pairing",
    "Round",
    "Standing",
    "TournamentFormat",
    "TournamentState",
    "all_formats",
    "bracket_json",
    "bracket_state",
    "check_options",
    "decide_match",
    "final_standings",
    "first_round",
    "for_any_field",
    "format_names",
    "get_format",
    "is_finished",
    "max_swiss_rounds",
    "next_round",
    "option_readers",
    "outcome_by_order",
    "planned_rounds",
    "register",
    "seed_order",
    "standings",
    "unregister",
]
