"""The double elimination format: nobody is out before a second loss. Two seats: the winners and
losers brackets of bracket.py (``build_double``); tables of 3 to 5: double_tables.py. With
``grand_final_reset`` (the default) a grand final won from the lower bracket is played again."""

from __future__ import annotations

import functools

from .bracket import Bracket, build_double
from .double_tables import build_double_tables
from .elimination import Elimination, advance_of
from .model import ADVANCE, GRAND_FINAL_RESET, Options
from .registry import register

DOUBLE = "double"


@functools.lru_cache(maxsize=64)
def double_bracket(entrants: int, table_size: int, advance: int, grand_final_reset: bool) -> Bracket:
    if table_size == 2:
        return build_double(entrants, grand_final_reset)
    return build_double_tables(entrants, table_size, advance, grand_final_reset)


class DoubleElimination(Elimination):
    name = DOUBLE
    label = "double elimination"
    options = (ADVANCE, GRAND_FINAL_RESET)

    def shape(self, entrants: int, options: Options) -> Bracket:
        return double_bracket(entrants, options.table_size, advance_of(options), options.grand_final_reset)


register(DoubleElimination())
