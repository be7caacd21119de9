"""Seat order within a table: every entrant should sit in each seat about equally often.

With duplicate deals each match rotates the entrants through every seat anyway; the pairing's
seat order still decides who starts, and which seats the extra games of an incomplete rotation
give. The rule: give each table the seat order that adds least to the entrants' counts of
those seats (which keeps the sum of squares, hence the spread, smallest); on a tie, move each
entrant away from the seat it had last time; on a tie again, keep the table's order (the
better-placed entrant sits first). Swiss at two seats uses chess colours instead
(``SeatBook.seat_pair``), and Swiss tables are formed so that everyone can take one of its
least-used seats where possible (``SeatBook.excess``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import cast

from .model import EntrantId


class SeatBook:
    """How often each entrant has started in each seat, and its last seat."""

    def __init__(self, table_size: int) -> None:
        self.table_size = table_size
        self.counts: dict[EntrantId, list[int]] = {}
        self.last: dict[EntrantId, int] = {}
        self.history: dict[EntrantId, list[int]] = {}  # seats in the order played
        self._excess: dict[tuple[EntrantId, ...], int] = {}

    def count(self, entrant: EntrantId, seat: int) -> int:
        return self.counts.get(entrant, [0] * self.table_size)[seat]

    def record(self, seated: Sequence[EntrantId]) -> None:
        for seat, entrant in enumerate(seated):
            self.counts.setdefault(entrant, [0] * self.table_size)[seat] += 1
            self.last[entrant] = seat
            self.history.setdefault(entrant, []).append(seat)
        self._excess.clear()

    def forget(self, seated: Sequence[EntrantId]) -> None:
        for seat, entrant in enumerate(seated):
            self.counts[entrant][seat] -= 1
            self.history[entrant].pop()
        self._excess.clear()

    def lean(self, entrant: EntrantId) -> int:
        """Two seats: first-seat starts minus second-seat starts."""
        return self.count(entrant, 0) - self.count(entrant, 1)

    def due(self, entrant: EntrantId) -> int | None:
        """Two seats: the seat that evens the entrant's count out, or else alternates (chess
        colours); None before its first game."""
        lean = self.lean(entrant)
        if lean:
            return 1 if lean > 0 else 0
        return 1 - self.last[entrant] if entrant in self.last else None

    def seat_pair(self, pair: Sequence[EntrantId], flip: bool = False) -> tuple[EntrantId, EntrantId]:
        """Two seats, chess colour allocation: each gets the seat it is due; when both are due
        the same seat, the one with the larger imbalance gets it, then the one whose seats
        differed from the other's at the latest game where they differed (it alternates), then
        the better placed (``pair`` is listed best-placed first). Nobody due anything: the better
        placed starts, or the other with ``flip`` (alternate boards in round one)."""
        first, second = pair
        due_first, due_second = self.due(first), self.due(second)
        if due_first is None and due_second is None:
            seated = (second, first) if flip else (first, second)
        elif due_first is None or due_second is None or due_first != due_second:
            seat = due_first if due_first is not None else 1 - (due_second or 0)
            seated = (first, second) if seat == 0 else (second, first)
        else:
            winner = self._stronger_due(first, second)
            loser = second if winner == first else first
            seated = (winner, loser) if due_first == 0 else (loser, winner)
        self.record(seated)
        return seated

    def _stronger_due(self, first: EntrantId, second: EntrantId) -> EntrantId:
        if abs(self.lean(first)) != abs(self.lean(second)):
            return first if abs(self.lean(first)) > abs(self.lean(second)) else second
        for mine, theirs in zip(reversed(self.history.get(first, [])), reversed(self.history.get(second, []))):
            if mine != theirs:  # the one who sat first then is due second now, and vice versa
                return first if 1 - mine == self.due(first) else second
        return first

    def excess(self, table: Sequence[EntrantId]) -> int:
        """The least, over seat orders of ``table``, of the sum of how far above its least-used
        seat each entrant would sit: 0 when everyone can take one of its least-used seats (so
        nobody's counts drift apart by more than one)."""
        key = tuple(sorted(table))
        if key not in self._excess:
            self._excess[key] = _least_excess(tuple(sorted(self._above_least(entrant) for entrant in key)))
        return self._excess[key]

    def seat(self, table: Sequence[EntrantId]) -> tuple[EntrantId, ...]:
        """The best seat order for ``table`` (listed best-placed first), recorded in the book."""
        best = min(itertools.permutations(table), key=self._cost)
        self.record(best)
        return best

    def _cost(self, order: tuple[EntrantId, ...]) -> tuple[int, int]:
        added = sum(self.count(entrant, seat) for seat, entrant in enumerate(order))
        repeated = sum(1 for seat, entrant in enumerate(order) if self.last.get(entrant) == seat)
        return added, repeated

    def _above_least(self, entrant: EntrantId) -> tuple[int, ...]:
        counts = self.counts.get(entrant, [0] * self.table_size)
        least = min(counts)
        return tuple(count - least for count in counts)


@functools.lru_cache(maxsize=4096)
def _least_excess(rows: tuple[tuple[int, ...], ...]) -> int:
    """The least sum of ``rows[i][seat_i]`` over distinct seats (a small assignment problem,
    solved over the sets of seats taken)."""
    best: dict[int, int] = {0: 0}
    for row in rows:
        step: dict[int, int] = {}
        for mask, total in best.items():
            for seat, extra in enumerate(row):
                if not mask >> seat & 1:
                    taken = mask | 1 << seat
                    step[taken] = min(step.get(taken, total + extra), total + extra)
        best = step
    return min(best.values())


def equitable_seats(tables: Sequence[Sequence[EntrantId]], table_size: int) -> list[tuple[EntrantId, ...]]:
    """Seat orders for a fixed schedule of full tables in which every entrant starts in each seat
    floor(m/k) or ceil(m/k) times over its m tables (k seats): always possible (de Werra's
    equitable edge colouring of a bipartite graph).

    Tables on one side, entrants on the other, a seat is an edge's colour. Each entrant's
    memberships are cut into groups of k, each group a vertex of its own, so every vertex has
    at most k edges; a bipartite graph of maximum degree k has a proper k-edge-colouring
    (Kőnig), found edge by edge by swapping two colours along an alternating path. A full
    group then holds every seat once and the last group distinct seats: within one.
    """
    if any(len(table) != table_size for table in tables):
        raise ValueError("equitable seating needs full tables")
    edges: list[tuple[tuple[object, ...], tuple[object, ...]]] = []
    memberships: dict[EntrantId, int] = {}
    for index, table in enumerate(tables):
        for entrant in table:
            group = memberships.get(entrant, 0) // table_size
            memberships[entrant] = memberships.get(entrant, 0) + 1
            edges.append((("table", index), ("entrant", entrant, group)))
    at: dict[tuple[object, ...], dict[int, int]] = {}  # vertex -> colour -> edge
    colour: list[int] = [-1] * len(edges)
    for edge, (table_vertex, entrant_vertex) in enumerate(edges):
        at_table = at.setdefault(table_vertex, {})
        at_entrant = at.setdefault(entrant_vertex, {})
        free_table = next(c for c in range(table_size) if c not in at_table)
        free_entrant = next(c for c in range(table_size) if c not in at_entrant)
        if free_table in at_entrant:
            _swap_along_path(edges, colour, at, entrant_vertex, free_table, free_entrant)
        colour[edge] = free_table
        at_table[free_table] = edge
        at_entrant[free_table] = edge
    seated: list[list[EntrantId]] = [list(table) for table in tables]
    for edge, (table_vertex, entrant_vertex) in enumerate(edges):
        seated[cast(int, table_vertex[1])][colour[edge]] = cast(EntrantId, entrant_vertex[1])
    return [tuple(table) for table in seated]


def _swap_along_path(
    edges: list[tuple[tuple[object, ...], tuple[object, ...]]],
    colour: list[int],
    at: dict[tuple[object, ...], dict[int, int]],
    start: tuple[object, ...],
    first: int,
    second: int,
) -> None:
    """Swap colours ``first`` and ``second`` on the path from ``start`` alternating between them."""
    path = []
    vertex, wanted = start, first
    while wanted in at.get(vertex, {}):
        edge = at[vertex][wanted]
        path.append(edge)
        ends = edges[edge]
        vertex = ends[1] if ends[0] == vertex else ends[0]
        wanted = second if wanted == first else first
    for edge in path:
        for end in edges[edge]:
            at[end].pop(colour[edge], None)
    for edge in path:
        colour[edge] = second if colour[edge] == first else first
        for end in edges[edge]:
            at[end][colour[edge]] = edge
