"""Swiss pairings: entrants of equal points meet, nobody meets twice, nobody gets two byes, and
everyone's seat counts stay within one of each other wherever the pairings allow.

Two seats: a minimum-cost perfect matching (networkx, blossom algorithm) over the entrants and,
with an odd field, a bye node. Costs are compared entry by entry (each entry outweighs any sum of
the later ones), from the most to the least important:

1. a second bye: only when everyone has had one;
2. rematches: only when no pairing without one exists (then as few as possible);
3. a seat clash: two entrants who both started more often in the same seat (the lean,
   first-seat starts minus second-seat starts, of the same sign): one of them would drift two
   apart; counted as the smaller of the two leans;
4. the points gap of each pair, squared (pairs within a score group cost nothing here; the
   matching floats as few entrants as possible, by as little as possible); the bye goes to the
   lowest-placed entrant without one (a bye pairs with "minus half a point");
5. two even entrants who both sat in the same seat last time (one would sit there twice running);
6. within a score group, top half against bottom half (1 v 5, 2 v 6, ... in a group of 8):
   the cost is (distance in the standings - half the group)^2.

Seats then follow chess colours (SeatBook.seat_pair): each gets the seat it is due. Since every
lean is then -1, 0 or +1 and the leans add up to zero, a pairing without clashes always exists
before rematches are counted; seats drift two apart only when every rematch-free pairing has a
clash (late rounds of long Swisses of small fields).

Tables of 3 to 5: the ``n mod k`` lowest-placed entrants without a bye sit out; the others fill
the tables to the least (rematches, seat excess, points spread), compared in that order.
Rematches count earlier meetings of each pair at the table; the seat excess of a table is the
least, over its seat orders, of how far above its least-used seat each entrant sits (0: nobody's
seat counts drift more than one apart); the points spread sums the squared points gaps. Fields
with at most EXACT_SPLITS splits into tables try every split. Larger ones fill the tables in
standings order (best k at table 1), then swap two entrants of different tables while that
lowers the cost; if someone is then still above its least-used seat, tables built seat by seat
(seat_first_tables) and improved by the same swaps are tried as well. Rematches at tables are
kept few this way, not forbidden.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import cast

from .model import EntrantId
from .seating import SeatBook

Cost = tuple[int, ...]  # compared in order: the first differing entry decides
EXACT_SPLITS = 1000  # fields with at most this many splits into tables are searched exhaustively


def pair_two_seats(
    order: Sequence[EntrantId],
    points: Mapping[EntrantId, int],
    met: Mapping[frozenset[EntrantId], int],
    byes: Mapping[EntrantId, int],
    seat_lean: Mapping[EntrantId, int],
    last_seat: Mapping[EntrantId, int] | None = None,
) -> tuple[list[tuple[EntrantId, EntrantId]], EntrantId | None]:
    """Pairs (best-placed first) and the bye, if any.

    ``order``: the standings, best first. ``points``: in integer units (half points).
    ``met``: how often each pair has met. ``seat_lean``: first-seat starts minus second-seat
    starts. ``last_seat``: the seat of each entrant's latest game (0 or 1).
    """
    last_seat = last_seat or {}
    rank = {entrant: index for index, entrant in enumerate(order)}
    group_position, group_size = _score_groups(order, points)
    costs: dict[tuple[object, object], Cost] = {}
    for first, second in itertools.combinations(order, 2):
        lean_first, lean_second = seat_lean.get(first, 0), seat_lean.get(second, 0)
        # Both due the same seat because of their counts: one of them drifts to |lean| + 1.
        clash = min(abs(lean_first), abs(lean_second)) if lean_first * lean_second > 0 else 0
        # Both even and due the same seat by alternation: one of them sits there twice running.
        alike = lean_first == lean_second == 0 and first in last_seat and last_seat.get(second) == last_seat[first]
        group = 0
        if points[first] == points[second]:
            group = (abs(group_position[first] - group_position[second]) - group_size[first] // 2) ** 2
        costs[(first, second)] = (
            0,
            met.get(frozenset((first, second)), 0),
            clash,
            (points[first] - points[second]) ** 2,
            int(alike),
            group,
        )
    bye_node = ("bye",)
    if len(order) % 2:
        for entrant in order:
            costs[(entrant, bye_node)] = (
                byes.get(entrant, 0),
                0,
                0,
                (points[entrant] + 1) ** 2,
                0,
                len(order) - rank[entrant],
            )
    matching = _min_cost_perfect_matching(order, costs)
    pairs: list[tuple[EntrantId, EntrantId]] = []
    bye: EntrantId | None = None
    for one, other in matching:
        if bye_node in (one, other):
            bye = cast(EntrantId, other if one == bye_node else one)
        else:
            a, b = cast(EntrantId, one), cast(EntrantId, other)
            pairs.append((a, b) if rank[a] < rank[b] else (b, a))
    pairs.sort(key=lambda pair: rank[pair[0]])
    return pairs, bye


def _min_cost_perfect_matching(
    nodes: Sequence[object], costs: Mapping[tuple[object, object], Cost]
) -> set[tuple[object, object]]:
    """A perfect matching of least cost, costs compared entry by entry (lexicographically).

    Each entry is weighted by more than the most that all later entries of a whole matching can
    add up to, so the integer sum orders matchings exactly as the tuples do."""
    pairs_in_matching = len(nodes) // 2 + 1
    width = len(next(iter(costs.values())))
    scale = [1] * width
    for index in range(width - 2, -1, -1):
        largest = max(cost[index + 1] for cost in costs.values())
        scale[index] = scale[index + 1] * (largest * pairs_in_matching + 1)
    total = {edge: sum(entry * weight for entry, weight in zip(cost, scale)) for edge, cost in costs.items()}
    top = max(total.values()) + 1
    import networkx as nx  # here, not at the top: importing it is a third of a second of every lineit start

    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    for (first, second), value in total.items():
        graph.add_edge(first, second, weight=top - value)
    return cast(set[tuple[object, object]], nx.max_weight_matching(graph, maxcardinality=True, weight="weight"))


def _score_groups(
    order: Sequence[EntrantId], points: Mapping[EntrantId, int]
) -> tuple[dict[EntrantId, int], dict[EntrantId, int]]:
    position: dict[EntrantId, int] = {}
    size: dict[EntrantId, int] = {}
    for _, group in itertools.groupby(order, key=lambda entrant: points[entrant]):
        members = list(group)
        for index, entrant in enumerate(members):
            position[entrant] = index
            size[entrant] = len(members)
    return position, size


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

    known: dict[tuple[EntrantId, ...], tuple[int, int, int]] = {}

    def cost(table: Sequence[EntrantId]) -> tuple[int, int, int]:
        key = tuple(sorted(table))
        if key not in known:
            rematches = spread = 0
            for first, second in itertools.combinations(key, 2):
                rematches += met.get(frozenset((first, second)), 0)
                spread += (points[first] - points[second]) ** 2
            known[key] = (rematches, seats.excess(key) if seats else 0, spread)
        return known[key]

    def total(tables: Sequence[Sequence[EntrantId]]) -> tuple[int, ...]:
        return tuple(sum(column) for column in zip(*map(cost, tables)))

    exact = _splits(len(order), table_size) <= EXACT_SPLITS
    if exact:
        tables = min(_every_split(list(order), table_size), key=total)
    else:
        tables = _improve([list(order[at : at + table_size]) for at in range(0, len(order), table_size)], total)
    for first_seat in range(table_size if seats is not None and not exact else 0):
        if total(tables)[1] == 0:
            break
        seat_first = seat_first_tables(order, points, met, table_size, cast(SeatBook, seats), first_seat)
        if seat_first is None:
            break
        seat_first = _improve(seat_first, total)
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


def _improve(
    tables: list[list[EntrantId]], total: Callable[[Sequence[Sequence[EntrantId]]], tuple[int, ...]]
) -> list[list[EntrantId]]:
    """Swap two entrants of different tables while that lowers the cost of those two tables."""
    improved = True
    while improved:
        improved = False
        for first, second in itertools.combinations(tables, 2):
            before = total((first, second))
            for i, j in itertools.product(range(len(first)), range(len(second))):
                first[i], second[j] = second[j], first[i]
                after = total((first, second))
                if after < before:
                    before, improved = after, True
                else:
                    first[i], second[j] = second[j], first[i]
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
    count = len(order) // table_size
    import networkx as nx

    flows = nx.DiGraph()
    for entrant in order:
        counts = [seats.count(entrant, seat) for seat in range(table_size)]
        flows.add_edge("in", ("entrant", entrant), capacity=1)
        for seat in range(table_size):
            if counts[seat] == min(counts):
                flows.add_edge(("entrant", entrant), ("seat", seat), capacity=1)
    for seat in range(table_size):
        flows.add_edge(("seat", seat), "out", capacity=count)
    value, flow = nx.maximum_flow(flows, "in", "out")
    if value < len(order):
        return None
    by_seat = [[e for e in order if flow[("entrant", e)].get(("seat", seat), 0)] for seat in range(table_size)]
    by_seat = by_seat[first_seat:] + by_seat[:first_seat]
    tables = [[entrant] for entrant in by_seat[0]]
    for joining in by_seat[1:]:
        costs: dict[tuple[object, object], Cost] = {}
        for index, table in enumerate(tables):
            for entrant in joining:
                rematches = sum(met.get(frozenset((entrant, other)), 0) for other in table)
                spread = sum((points[entrant] - points[other]) ** 2 for other in table)
                costs[(("table", index), entrant)] = (rematches, spread)
        nodes: list[object] = [("table", index) for index in range(count)]
        for end_a, end_b in _min_cost_perfect_matching(nodes + list(joining), costs):
            table_node, joiner = (end_a, end_b) if isinstance(end_a, tuple) else (end_b, end_a)
            tables[cast(tuple[str, int], table_node)[1]].append(cast(EntrantId, joiner))
    return tables
