"""A new game: the arguments checked here, in Python, so that a wrong one, even of the wrong
type, gets a clear InvalidSetup whether or not state.py is compiled (compiled code would
refuse a wrongly typed argument with a bare TypeError before any check could run)."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import ALL_CARDS, CARD_COUNT
from .errors import InvalidSetup
from .rules import MAX_PLAYERS, MIN_PLAYERS, RULESETS, STANDARD
from .state import GameState, shuffled_deck

_SORTED_CARDS = sorted(ALL_CARDS)


def new_game(
    num_players: int,
    ruleset: str = STANDARD,
    *,
    seed: int | None = None,
    deck: Sequence[int] | None = None,
    first_player: int = 0,
) -> GameState:
    """A new game, dealt from ``deck`` (top card first) or from a deck shuffled by ``seed``."""
    if not isinstance(num_players, int) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidSetup(f"Line-it is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {num_players!r}")
    if ruleset not in RULESETS:
        raise InvalidSetup(f"unknown ruleset {ruleset!r}; choose one of {', '.join(RULESETS)}")
    if not isinstance(first_player, int) or not 0 <= first_player < num_players:
        raise InvalidSetup(f"first player must be a seat from 0 to {num_players - 1}, not {first_player!r}")
    if deck is None:
        if seed is None:
            raise InvalidSetup("give a seed or an explicit deck order")
        if not isinstance(seed, int):
            raise InvalidSetup(f"a seed is an integer, not {seed!r}")
        order = shuffled_deck(seed)
    else:
        if not isinstance(deck, Sequence):
            raise InvalidSetup(f"a deck is a sequence of cards, not {deck!r}")
        order = list(deck)
        try:
            complete = len(order) == CARD_COUNT and sorted(order) == _SORTED_CARDS
        except TypeError:  # cards of mixed types
            complete = False
        if not complete:
            raise InvalidSetup(f"a deck must hold each of the {CARD_COUNT} cards 1..{CARD_COUNT} exactly once")
    return GameState(num_players, ruleset, order, first_player)
