"""Tournaments on the platform: create, sign up, start, advance round by round, finish, cancel.

The pairing rules live in ``lineit.formats`` (pure); this package keeps a tournament's whole
state in ``Tournament.state`` and turns each pending pairing into a match (``Match.tournament``,
``tournament_round``, ``tournament_table``; unique, so a round is never created twice).

Every step runs under a lock on the tournament's row and checks the status first, so a task that
runs twice, or the periodic tick racing a task, does nothing the second time. A tournament
advances when every match of its round has ended: finished (decided by its games), or failed or
cancelled by the platform, which counts as a tie between everyone at the table (they share the
place and split the points; in elimination the better seed goes on, the formats' tie rule).
A bot that fails every game still ends its match, last.

The modules, by sub-domain: ``creation`` (settings, creating, signing up and withdrawing),
``running`` (start, rounds, advance, cancel and the periodic tick), ``recurring`` (recurring
tournament templates) and ``presentation`` (rounds, standings and bracket for the API and pages).
Import from this package; the names below are its public interface.
"""

from .creation import (
    MAX_GAMES_PER_PAIRING,
    tournament_create,
    tournament_create_check,
    tournament_options,
    tournament_settings_check,
    tournament_sign_up,
    tournament_withdraw,
)
from .presentation import tournament_bracket, tournament_rounds, tournament_standings
from .recurring import (
    RECURRING_FIELDS,
    recurring_tournament_check,
    recurring_tournament_run,
    recurring_tournament_save,
)
from .running import (
    tournament_advance,
    tournament_cancel,
    tournament_match_ended,
    tournament_start,
    tournaments_tick,
)

__all__ = [
    "MAX_GAMES_PER_PAIRING",
    "RECURRING_FIELDS",
    "recurring_tournament_check",
    "recurring_tournament_run",
    "recurring_tournament_save",
    "tournament_advance",
    "tournament_bracket",
    "tournament_cancel",
    "tournament_create",
    "tournament_create_check",
    "tournament_match_ended",
    "tournament_options",
    "tournament_rounds",
    "tournament_settings_check",
    "tournament_sign_up",
    "tournament_standings",
    "tournament_start",
    "tournament_withdraw",
    "tournaments_tick",
]
