"""Seat order within a table: every entrant should sit in each seat about equally often.

With duplicate deals each match rotates the entrants through every seat anyway; the pairing's
seat order still decides who starts, and which seats the extra games of an incomplete rotation
give. The rule: give each table the seat order that adds least to the entrants' counts of
those seats (which keeps the sum of squares, hence the spread, smallest); on a tie, move each
entrant away from the seat it had last time; on a tie again, keep the table's order (the
better-placed entrant sits first).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from .model import EntrantId


class SeatBook:
    """How often each entrant has started in each seat, and its last seat."""

    def __init__(self, table_size: int) -> None:
        self.table_size = table_size
        self.counts: dict[EntrantId, list[int]] = {}
        self.last: dict[EntrantId, int] = {}

    def count(self, entrant: EntrantId, seat: int) -> int:
        return self.counts.get(entrant, [0] * self.table_size)[seat]

    def record(self, seated: Sequence[EntrantId]) -> None:
        for seat, entrant in enumerate(seated):
            self.counts.setdefault(entrant, [0] * self.table_size)[seat] += 1
            self.last[entrant] = seat

    def forget(self, seated: Sequence[EntrantId]) -> None:
        for seat, entrant in enumerate(seated):
            self.counts[entrant][seat] -= 1

    def seat(self, table: Sequence[EntrantId]) -> tuple[EntrantId, ...]:
        """The best seat order for ``table`` (listed best-placed first), recorded in the book."""
        best = min(itertools.permutations(table), key=self._cost)
        self.record(best)
        return best

    def _cost(self, order: tuple[EntrantId, ...]) -> tuple[int, int]:
        added = sum(self.count(entrant, seat) for seat, entrant in enumerate(order))
        repeated = sum(1 for seat, entrant in enumerate(order) if self.last.get(entrant) == seat)
        return added, repeated

    def spread(self, entrant: EntrantId) -> int:
        """Most-used seat minus least-used seat (seats up to the table size)."""
        counts = self.counts.get(entrant, [0] * self.table_size)
        return max(counts) - min(counts)


def polish(tables: list[tuple[EntrantId, ...]], table_size: int, passes: int = 20) -> list[tuple[EntrantId, ...]]:
    """Improve a fixed schedule's seat orders (round robin knows every table in advance): reseat
    one table at a time against all the others until no table improves."""
    book = SeatBook(table_size)
    for table in tables:
        book.record(table)
    tables = list(tables)
    for _ in range(passes):
        changed = False
        for index, table in enumerate(tables):
            book.forget(table)
            current = _square_cost(book, table)
            best = min(itertools.permutations(table), key=lambda order: (_square_cost(book, order), order != table))
            if _square_cost(book, best) < current:
                tables[index] = best
                changed = True
            book.record(tables[index])
        if not changed:
            break
    return tables


def _square_cost(book: SeatBook, order: Sequence[EntrantId]) -> int:
    return sum(2 * book.count(entrant, seat) + 1 for seat, entrant in enumerate(order))
