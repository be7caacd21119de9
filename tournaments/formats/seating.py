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
from typing import cast

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
