"""The rules of Line-it as a pure library: no Django, no Celery, no I/O, no global random state.

>>> from lineit.engine import new_game
>>> state = new_game(2, "standard", seed=7)
>>> while not state.is_over:
...     state.apply(state.legal_actions()[0])
>>> len(state.scores())
2
"""

# First: it decides whether the compiled hot modules or their Python source are imported.
from ._implementation import IMPLEMENTATION, WHY_NOT_COMPILED
from .actions import CLOSE_ACTION, PASS_ACTION, describe, parse_action
from .cards import (
    ALL_CARDS,
    BET_CARDS,
    BET_VALUE,
    COLOUR_INDEX,
    COLOURS,
    NUMBER_CARDS,
    bet_value,
    card_label,
    colour_of,
    is_bet,
)
from .deal import new_game
from .determinize import determinize
from .errors import EngineError, IllegalAction, InvalidSeat, InvalidSetup, ReplayError
from .explain import explain_illegal as explain_illegal_action
from .line import Line
from .observation import Observer
from .phases import PHASE_NAMES
from .replay import (
    REPLAY_FORMAT,
    REPLAY_FORMAT_VERSION,
    Verification,
    ranks_with_forfeits,
    record_replay,
    replay_game,
    verify_replay,
)
from .rules import (
    BGA,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RULES_CHANGELOG,
    RULES_VERSION,
    RULESETS,
    STANDARD,
    rounds_in_game,
)
from .state import GameState, shuffled_deck

__all__ = [
    "ALL_CARDS",
    "BET_CARDS",
    "BET_VALUE",
    "BGA",
    "CLOSE_ACTION",
    "COLOURS",
    "COLOUR_INDEX",
    "IMPLEMENTATION",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NUMBER_CARDS",
    "PASS_ACTION",
    "PHASE_NAMES",
    "REPLAY_FORMAT",
    "REPLAY_FORMAT_VERSION",
    "RULESETS",
    "RULES_CHANGELOG",
    "RULES_VERSION",
    "STANDARD",
    "WHY_NOT_COMPILED",
    "EngineError",
    "GameState",
    "IllegalAction",
    "InvalidSeat",
    "InvalidSetup",
    "Line",
    "Observer",
    "ReplayError",
    "Verification",
    "bet_value",
    "card_label",
    "colour_of",
    "describe",
    "determinize",
    "explain_illegal_action",
    "is_bet",
    "new_game",
    "parse_action",
    "ranks_with_forfeits",
    "record_replay",
    "replay_game",
    "rounds_in_game",
    "shuffled_deck",
    "verify_replay",
]
