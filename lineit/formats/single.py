"""The single elimination format: the bracket of bracket.py (``build_single``), the top ``advance``
of each table going on (default: the top half, 1 with two seats)."""

from __future__ import annotations

import functools

from .bracket import Bracket, build_single
from .elimination import Elimination, advance_of
from .model import Options
from .registry import register

SINGLE = "single"


@functools.lru_cache(maxsize=64)
def single_bracket(entrants: int, table_size: int, advance: int) -> Bracket:
    return build_single(entrants, table_size, advance)


class SingleElimination(Elimination):
    name = SINGLE
    label = "single elimination"

    def shape(self, entrants: int, options: Options) -> Bracket:
        return single_bracket(entrants, options.table_size, advance_of(options))


register(SingleElimination())
