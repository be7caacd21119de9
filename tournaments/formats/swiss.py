"""Swiss pairings: entrants of equal points meet, nobody meets twice, nobody gets two byes.

Two seats: a minimum-cost perfect matching (networkx, blossom algorithm) over the entrants and,
with an odd field, a bye node. Costs, from the most to the least important:

1. a rematch, or a second bye: only when no pairing without one exists (rematches are then as
   few as possible); a second bye only when everyone has had one;
2. two entrants who both started two or more times more often in the same seat than in the
   other (one of them would then lean three ways);
3. the points gap of each pair, squared (pairs within a score group cost nothing here; the
   matching floats as few entrants as possible, by as little as possible);
   the bye goes to the lowest-placed entrant without one (a bye pairs with "minus half a point");
4. seats: two entrants who both started more often in the same seat;
5. within a score group, top half against bottom half (1 v 5, 2 v 6, ... in a group of 8):
   the cost is (distance in the standings - half the group)^2.

Tables of 3 to 5: the ``n mod k`` lowest-placed entrants without a bye sit out; the others fill
the tables in standings order (best k at table 1), then two entrants of different tables swap
while that lowers (rematches x 10^9, points spread squared): tables are then as close to score
groups as rematches allow. Rematches at tables are kept to a minimum this way, not forbidden.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import networkx as nx

from .model import EntrantId

REMATCH = 10**15
SECOND_BYE = 10**16
SEAT_SPREAD = 10**13  # both leaning two or more the same way: one of them would lean three
POINTS = 10**8
SEATS = 10**5
TABLE_REMATCH = 10**9


def pair_two_seats(
    order: Sequence[EntrantId],
    points: Mapping[EntrantId, int],
    met: Mapping[frozenset[EntrantId], int],
    byes: Mapping[EntrantId, int],
    seat_lean: Mapping[EntrantId, int],
) -> tuple[list[tuple[EntrantId, EntrantId]], EntrantId | None]:
    """Pairs (best-placed first) and the bye, if any.

    ``order``: the standings, best first. ``points``: in integer units (half points).
    ``met``: how often each pair has met. ``seat_lean``: first-seat starts minus second-seat starts.
    """
    rank = {entrant: index for index, entrant in enumerate(order)}
    group_position, group_size = _score_groups(order, points)
    graph = nx.Graph()
    graph.add_nodes_from(order)
    for first, second in itertools.combinations(order, 2):
        cost = REMATCH * met.get(frozenset((first, second)), 0)
        cost += POINTS * (points[first] - points[second]) ** 2
        lean_first, lean_second = seat_lean.get(first, 0), seat_lean.get(second, 0)
        if lean_first * lean_second > 0:
            shared = min(abs(lean_first), abs(lean_second))
            cost += (SEAT_SPREAD if shared >= 2 else SEATS) * shared
        if points[first] == points[second]:
            half = group_size[first] // 2
            cost += (abs(group_position[first] - group_position[second]) - half) ** 2
        graph.add_edge(first, second, cost=cost)
    bye_node = None
    if len(order) % 2:
        bye_node = ("bye",)
        for entrant in order:
            cost = SECOND_BYE * byes.get(entrant, 0) + POINTS * (points[entrant] + 1) ** 2
            cost += len(order) - rank[entrant]
            graph.add_edge(entrant, bye_node, cost=cost)
    top = max(data["cost"] for _, _, data in graph.edges(data=True)) + 1
    for _, _, data in graph.edges(data=True):
        data["weight"] = top - data["cost"]
    matching = nx.max_weight_matching(graph, maxcardinality=True, weight="weight")
    pairs: list[tuple[EntrantId, EntrantId]] = []
    bye: EntrantId | None = None
    for first, second in matching:
        if first == bye_node or second == bye_node:
            bye = second if first == bye_node else first
        else:
            pairs.append((first, second) if rank[first] < rank[second] else (second, first))
    pairs.sort(key=lambda pair: rank[pair[0]])
    return pairs, bye


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
) -> list[list[EntrantId]]:
    """Tables in standings order, then improved by swaps (see the module's notes)."""
    tables = [list(order[start : start + table_size]) for start in range(0, len(order), table_size)]

    def cost(table: list[EntrantId]) -> int:
        total = 0
        for first, second in itertools.combinations(table, 2):
            total += TABLE_REMATCH * met.get(frozenset((first, second)), 0)
            total += (points[first] - points[second]) ** 2
        return total

    improved = True
    while improved:
        improved = False
        for first, second in itertools.combinations(tables, 2):
            for i, j in itertools.product(range(table_size), repeat=2):
                before = cost(first) + cost(second)
                first[i], second[j] = second[j], first[i]
                if cost(first) + cost(second) < before:
                    improved = True
                else:
                    first[i], second[j] = second[j], first[i]
    rank = {entrant: index for index, entrant in enumerate(order)}
    for table in tables:
        table.sort(key=rank.__getitem__)
    tables.sort(key=lambda table: rank[table[0]])
    return tables


def table_rematches(tables: Sequence[Sequence[EntrantId]], met: Mapping[frozenset[EntrantId], int]) -> int:
    """How many pairs at these tables have met before."""
    return sum(met.get(frozenset(pair), 0) > 0 for table in tables for pair in itertools.combinations(table, 2))
