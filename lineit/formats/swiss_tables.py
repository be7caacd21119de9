"""Swiss pairings at tables of 3 to 5 (swiss.py pairs two seats and is the format).

The ``n mod k`` lowest-placed entrants without a bye sit out; the others fill the tables to the
least (rematches, seat excess, points spread), compared in that order. Rematches count earlier
meetings of each pair at the table; the seat excess of a table is the least, over its seat
orders, of how far above its least-used seat each entrant sits (0: nobody's seat counts drift
more than one apart); the points spread sums the squared points gaps. Fields with at most
EXACT_SPLITS splits into tables try every split. Larger ones fill the tables in standings order
(best k at table 1), then swap two entrants of different tables while that lowers the cost; if
someone is then still above its least-used seat, tables built seat by seat (seat_first_tables)
and improved by the same swaps are tried as well. Rematches at tables are kept few this way,
not forbidden.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, cast

from .matching import min_cost_perfect_matching
from .model import EntrantId
from .seating import SeatBook

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

EXACT_SPLITS = 1000  # fields with at most this many splits into tables are searched exhaustively


def choose_table_byes(order: Sequence[EntrantId], byes: Mapping[EntrantId, int], count: int) -> list[EntrantId]:
    """The ``count`` lowest-placed entrants among those with fewest byes."""
    candidates = sorted(order, key=lambda entrant: (byes.get(entrant, 0), -order.index(entrant)))
    return sorted(candidates[:count], key=order.index)


def fill_tables(
    order: Sequence[EntrantId],
    points: Mapping[EntrantId, int],
    met: Mapping[frozenset[EntrantId], int],
    table_size: int,
    seats: SeatBook | None = None,
) -> list[list[EntrantId]]:
    """Tables in standings order, then improved by swaps (see the module's notes). With
    ``seats``, the seat counts come second: if the swaps leave someone without one of its
    least-used seats, tables built seat by seat (``seat_first_tables``, starting from each seat
    in turn) and improved by the same swaps are tried too, and the best is kept."""

    known: dict[tuple[EntrantId, ...], tuple[int, int]] = {}
    place = {entrant: index for index, entrant in enumerate(order)}
    meetings = [[0] * len(order) for _ in order]  # by place: a list lookup, not a frozenset's hash
    for pair, times in met.items():
        one, other = (place.get(entrant) for entrant in pair)
        if one is not None and other is not None:
            meetings[one][other] = meetings[other][one] = times
    line = [points[entrant] for entrant in order]

    def cheap(table: Sequence[EntrantId]) -> tuple[int, int]:
        """Rematches and points spread (the seat excess is dearer: ``excess``)."""
        key = tuple(sorted(table))
        if key not in known:
            rematches = spread = 0
            for first, second in itertools.combinations([place[entrant] for entrant in key], 2):
                rematches += meetings[first][second]
                spread += (line[first] - line[second]) ** 2
            known[key] = (rematches, spread)
        return known[key]

    def excess(table: Sequence[EntrantId]) -> int:
        return seats.excess(table) if seats else 0

    def cost(table: Sequence[EntrantId]) -> tuple[int, int, int]:
        rematches, spread = cheap(table)
        return rematches, excess(table), spread

    def total(tables: Sequence[Sequence[EntrantId]]) -> tuple[int, ...]:
        return tuple(sum(column) for column in zip(*map(cost, tables)))

    exact = _splits(len(order), table_size) <= EXACT_SPLITS
    if exact:
        tables = min(_every_split(list(order), table_size), key=total)
    else:
        screen = _SwapScreen(order, points, met)
        tables = _improve(
            [list(order[at : at + table_size]) for at in range(0, len(order), table_size)], cheap, excess, screen
        )
    for first_seat in range(table_size if seats is not None and not exact else 0):
        if total(tables)[1] == 0:
            break
        seat_first = seat_first_tables(order, points, met, table_size, cast(SeatBook, seats), first_seat)
        if seat_first is None:
            break
        seat_first = _improve(seat_first, cheap, excess, _SwapScreen(order, points, met))
        if total(seat_first) < total(tables):
            tables = seat_first
    rank = {entrant: index for index, entrant in enumerate(order)}
    for table in tables:
        table.sort(key=rank.__getitem__)
    tables.sort(key=lambda table: rank[table[0]])
    return tables


def _splits(count: int, table_size: int) -> int:
    """How many ways there are to split ``count`` entrants into tables of ``table_size``."""
    tables = count // table_size
    return math.factorial(count) // (math.factorial(table_size) ** tables * math.factorial(tables))


def _every_split(entrants: list[EntrantId], table_size: int) -> Iterator[list[list[EntrantId]]]:
    """Every split into tables, the standings-order split first."""
    if not entrants:
        yield []
        return
    first, rest = entrants[0], entrants[1:]
    for others in itertools.combinations(rest, table_size - 1):
        remaining = [entrant for entrant in rest if entrant not in others]
        for split in _every_split(remaining, table_size):
            yield [[first, *others], *split]


class _SwapScreen:
    """Which pairs of tables have a swap that could lower their cost, all pairs at once (numpy):
    a swap of x (table A) and y (table B) changes the rematches by what y and x meet in A and in
    B, and the spread likewise. A pair none of whose swaps could gives none (every swap is
    reverted), so the search need not try it."""

    def __init__(
        self, order: Sequence[EntrantId], points: Mapping[EntrantId, int], met: Mapping[frozenset[EntrantId], int]
    ) -> None:
        import numpy as np

        self.index = {entrant: place for place, entrant in enumerate(order)}
        line = np.array([points[entrant] for entrant in order], dtype=np.int64)
        self.gaps = np.subtract.outer(line, line) ** 2
        self.met = np.zeros((len(order), len(order)), dtype=np.int64)
        for pair, times in met.items():
            one, other = (self.index.get(entrant) for entrant in pair)
            if one is not None and other is not None:
                self.met[one, other] = self.met[other, one] = times

    def promising(self, tables: Sequence[Sequence[EntrantId]], excess: Sequence[int]) -> NDArray[np.bool_]:
        """``[a, b]``: whether some swap between tables a and b is not sure to be refused."""
        import numpy as np

        members = np.array([[self.index[entrant] for entrant in table] for table in tables], dtype=np.intp)
        count = len(tables)
        x = members[:, None, :, None]  # x: entrant i of table a, leaving it for table b
        y = members[None, :, None, :]  # y: entrant j of table b, leaving it for table a
        table_a = np.arange(count)[:, None, None, None]
        table_b = np.arange(count)[None, :, None, None]
        deltas = []
        for matrix in (self.met, self.gaps):
            sums = matrix[:, members].sum(axis=2)  # [v, t]: what v meets (or its gaps to) at table t
            deltas.append(
                sums[y, table_a] - matrix[y, x] - sums[x, table_a] + sums[x, table_b] - matrix[x, y] - sums[y, table_b]
            )
        rematches, spread = deltas
        seat_excess = np.asarray(excess, dtype=np.int64)
        excess_before = (seat_excess[:, None] + seat_excess[None, :])[:, :, None, None]
        possible = (rematches < 0) | ((rematches == 0) & ((excess_before > 0) | (spread < 0)))
        return possible.any(axis=(2, 3))


def _improve(
    tables: list[list[EntrantId]],
    cheap: Callable[[Sequence[EntrantId]], tuple[int, int]],
    excess: Callable[[Sequence[EntrantId]], int],
    screen: _SwapScreen | None = None,
) -> list[list[EntrantId]]:
    """Swap two entrants of different tables while that lowers the cost of those two tables
    (rematches, seat excess, points spread, compared in that order).

    The same swaps as comparing whole costs each time, found faster: the seat excess (the dear
    entry) is only worked out when the rematches and the spread leave the comparison open; a
    pair of tables that gave no swap is not tried again until one of them has changed (it
    would give none again); and, with ``screen``, each pass skips the pairs of tables still as
    they were when it began of which no swap could lower the cost."""
    version = [0] * len(tables)
    settled: dict[tuple[int, int], tuple[int, int]] = {}

    def pair_cheap(first: list[EntrantId], second: list[EntrantId]) -> tuple[int, int]:
        (rematches_a, spread_a), (rematches_b, spread_b) = cheap(first), cheap(second)
        return rematches_a + rematches_b, spread_a + spread_b

    improved = True
    while improved:
        improved = False
        at_start = list(version)
        promising = screen.promising(tables, [excess(table) for table in tables]) if screen else None
        for a, b in itertools.combinations(range(len(tables)), 2):
            if settled.get((a, b)) == (version[a], version[b]):
                continue
            if promising is not None and (version[a], version[b]) == (at_start[a], at_start[b]) and not promising[a, b]:
                settled[(a, b)] = (version[a], version[b])
                continue
            first, second = tables[a], tables[b]
            rematches, spread = pair_cheap(first, second)
            before = (rematches, excess(first) + excess(second), spread)
            changed = False
            for i, j in itertools.product(range(len(first)), range(len(second))):
                first[i], second[j] = second[j], first[i]
                rematches, spread = pair_cheap(first, second)
                # Not lower whatever the excess: more rematches, or as many, no excess to lose
                # and no less spread.
                hopeless = rematches > before[0] or (rematches == before[0] and before[1] == 0 and spread >= before[2])
                after = before if hopeless else (rematches, excess(first) + excess(second), spread)
                if after < before:
                    before, changed = after, True
                else:
                    first[i], second[j] = second[j], first[i]
            if changed:
                version[a] += 1
                version[b] += 1
                improved = True
            else:
                settled[(a, b)] = (version[a], version[b])
    return tables


def seat_first_tables(
    order: Sequence[EntrantId],
    points: Mapping[EntrantId, int],
    met: Mapping[frozenset[EntrantId], int],
    table_size: int,
    seats: SeatBook,
    first_seat: int = 0,
) -> list[list[EntrantId]] | None:
    """Tables built seat by seat: give everyone one of its least-used seats so that each seat has
    one entrant per table (a maximum flow; None if no such choice exists), then put the entrants
    of seat ``first_seat`` one per table in standings order, and join the next seats' entrants
    (cyclically) to the tables by a least-cost assignment (rematches, then the points spread)."""
    import numpy as np

    count = len(order) // table_size
    allowed = {}
    for entrant in order:
        counts = [seats.count(entrant, seat) for seat in range(table_size)]
        allowed[entrant] = [seat for seat in range(table_size) if counts[seat] == min(counts)]
    chosen = _seats_by_flow(order, allowed, table_size, count)
    if chosen is None:
        return None
    by_seat = [[e for e in order if chosen[e] == seat] for seat in range(table_size)]
    by_seat = by_seat[first_seat:] + by_seat[:first_seat]
    tables = [[entrant] for entrant in by_seat[0]]
    for joining in by_seat[1:]:
        # Nodes 0 .. count-1 are the tables, count .. 2 count-1 the joiners; a table meets a
        # joiner, never another table (entry 0 forbids it).
        first, second = np.triu_indices(2 * count, k=1)
        levels = np.zeros((3, len(first)), dtype=np.int64)
        levels[0] = (first < count) == (second < count)
        cross = np.flatnonzero(levels[0] == 0)
        for edge in cross.tolist():
            table, entrant = tables[first[edge]], joining[second[edge] - count]
            levels[1, edge] = sum(met.get(frozenset((entrant, other)), 0) for other in table)
            levels[2, edge] = sum((points[entrant] - points[other]) ** 2 for other in table)
        for table_node, joiner_node in min_cost_perfect_matching(levels, 2 * count):
            tables[table_node].append(joining[joiner_node - count])
    return tables


def _seats_by_flow(
    order: Sequence[EntrantId], allowed: Mapping[EntrantId, list[int]], table_size: int, per_seat: int
) -> dict[EntrantId, int] | None:
    """Each entrant one of its ``allowed`` seats, ``per_seat`` entrants in each seat (a maximum
    flow by augmenting paths over the seats: an entrant moves to another of its seats to make
    room), or None if there is no such choice."""
    rank = {entrant: index for index, entrant in enumerate(order)}
    chosen: dict[EntrantId, int] = {}
    held = [0] * table_size
    # movable[a][b]: entrants sitting in seat a who may sit in seat b.
    movable: list[list[set[EntrantId]]] = [[set() for _ in range(table_size)] for _ in range(table_size)]

    def sit(entrant: EntrantId, seat: int) -> None:
        old = chosen.get(entrant)
        if old is not None:
            held[old] -= 1
            for other in allowed[entrant]:
                movable[old][other].discard(entrant)
        chosen[entrant] = seat
        held[seat] += 1
        for other in allowed[entrant]:
            if other != seat:
                movable[seat][other].add(entrant)

    for entrant in order:
        # Breadth first over seats, from the entrant's own, to a seat with room left.
        came_from: dict[int, int | None] = {seat: None for seat in allowed[entrant]}
        queue = list(allowed[entrant])
        free = next((seat for seat in queue if held[seat] < per_seat), None)
        while free is None and queue:
            seat = queue.pop(0)
            for target in range(table_size):
                if target not in came_from and movable[seat][target]:
                    came_from[target] = seat
                    if held[target] < per_seat:
                        free = target
                        break
                    queue.append(target)
        if free is None:
            return None
        seat = free
        while came_from[seat] is not None:
            previous = cast(int, came_from[seat])
            sit(min(movable[previous][seat], key=rank.__getitem__), seat)
            seat = previous
        sit(entrant, seat)
    return chosen
