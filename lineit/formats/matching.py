"""Least-cost perfect matchings whose costs are compared entry by entry (lexicographically), for
a Swiss of up to 1,024 entrants.

The matching itself is rustworkx's blossom algorithm (``max_weight_matching`` with maximum
cardinality: Edmonds' primal-dual method, exact on integer weights, computed in Rust). Up to
FULL_GRAPH_NODES nodes it runs on the complete graph. On a complete graph of 1,024 nodes it
takes 10 to 20 s, so larger fields go this way:

1. a first matching on a sparse graph (each node's cheapest edges by four orders, about 25 a
   node; the nodes it leaves out get all their clean edges) gives an upper bound U;
2. a lower bound for the "points" entry comes from the linear programme's dual: a perfect
   matching crosses each cut {nodes with at least p points} at least c times (c = 1 where an
   odd number lie above it; for a matching with no rematch and no seat clash, also the excess
   of one lean sign above it), and an edge costs at least the squared gaps of the cuts it
   crosses, so the cut's squared gap is a feasible dual value (y = 0 on the nodes). LB is the
   sum of c times the squared gaps, an edge's reduced cost its cost less the dual values of
   the cuts it crosses;
3. if U has nothing before the points entry and its points entry is LB, no matching is cheaper
   down to the points entry, and the first matching is kept (its last entries, seat
   alternation and top half against bottom half, are then least on the sparse graph only);
4. otherwise, since any perfect matching M (of that kind) costs at least LB plus the reduced
   costs of its edges (all non-negative), an edge whose reduced cost exceeds U - LB is in no
   least-cost matching; the matching over the edges left is a least-cost matching of the
   whole graph, every entry (slower: the edges left are many, a few seconds at 1,024).

Costs are vectors of small non-negative integers; "exceeds" compares them lexicographically,
which is how their weighted sum compares too (each entry is weighted by more than the most that
all later entries of a whole matching can add up to).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

FULL_GRAPH_NODES = 128  # up to this many nodes, the complete graph is matched as it is
FIRST_EDGES_PER_NODE = 8  # the sparse graph: each node's cheapest edges, by three orders


def min_cost_perfect_matching(
    edge_levels: NDArray[np.int64],
    count: int,
    points: NDArray[np.int64] | None = None,
    points_level: int = 0,
    leans: NDArray[np.int64] | None = None,
) -> list[tuple[int, int]]:
    """A perfect matching of nodes 0 .. n-1 (n even) of least cost.

    ``edge_levels[k, e]``: entry k of the cost of the e-th pair (i, j), i < j, in the order of
    ``numpy.triu_indices(count, 1)``. Entry ``points_level`` must be ``(points[i] - points[j]) ** 2``, the squared gap on
    a line, which gives the lower bound that prunes the graph (see the module's notes); without
    ``points`` the lower bound is 0. ``leans``: with the entry before the points positive for
    two nodes of leans of the same sign, a matching without such a pair crosses each cut at
    least as often as one side's excess of one sign needs (see ``_cut_crossings``)."""
    import numpy as np

    if count == 0:
        return []
    if count % 2:
        raise ValueError(f"a perfect matching needs an even number of nodes, not {count}")
    first, second = np.triu_indices(count, k=1)
    if count <= FULL_GRAPH_NODES:
        matching, perfect = _solve(edge_levels, first, second, np.arange(len(first)), count)
        assert perfect  # a complete graph on an even number of nodes
        return _pairs(matching, first, second)
    reduced, slack = edge_levels, 0
    if points is not None:
        reduced, slack = _reduced_costs(edge_levels, points, points_level, first, second, _cut_crossings(points))
    per_node = FIRST_EDGES_PER_NODE
    candidates = _candidates(reduced, first, second, count, per_node, points_level)
    matching, perfect = _solve(edge_levels, first, second, candidates, count)
    if not perfect:
        # Those left out get every edge that is clean before the points entry (floats that
        # avoid rematches and seat clashes, from anywhere in the standings).
        candidates = np.union1d(candidates, _clean_edges(reduced[:points_level], first, second, matching, count))
        matching, perfect = _solve(edge_levels, first, second, candidates, count)
    while not perfect:
        per_node *= 4  # still no perfect matching: widen the graph (at worst to every edge)
        candidates = _candidates(reduced, first, second, count, per_node, points_level)
        matching, perfect = _solve(edge_levels, first, second, candidates, count)
    upper = edge_levels[:, matching].sum(axis=1)
    if points is not None and leans is not None and not upper[:points_level].any():
        # Nothing to gain before the points entry, so a matching as cheap has no rematch and no
        # clash either, and crosses each cut as often as a clash-free one must: a tighter bound.
        crossings = _cut_crossings(points, leans)
        reduced, slack = _reduced_costs(edge_levels, points, points_level, first, second, crossings)
        if _certified(upper, slack, points_level):
            return _pairs(matching, first, second)
    # Otherwise only the edges that may be in a least-cost matching, which is then exact.
    gap = upper.copy()
    gap[points_level] -= slack  # U - LB, entry by entry
    final, perfect = _solve(edge_levels, first, second, np.flatnonzero(_at_most(reduced, gap)), count)
    assert perfect  # the first matching's edges are all kept
    return _pairs(final, first, second)


def _certified(upper: NDArray[np.int64], bound: int, points_level: int) -> bool:
    """Whether a matching of cost ``upper`` (nothing before the points entry) meets the lower
    bound of the points entry: then no matching is cheaper down to that entry."""
    return int(upper[points_level]) <= bound


def _pairs(matching: NDArray[np.intp], first: NDArray[np.intp], second: NDArray[np.intp]) -> list[tuple[int, int]]:
    return [(int(first[edge]), int(second[edge])) for edge in matching]


def _reduced_costs(
    edge_levels: NDArray[np.int64],
    points: NDArray[np.int64],
    points_level: int,
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    crossings: NDArray[np.int64],
) -> tuple[NDArray[np.int64], int]:
    """Each edge's cost less the dual values of the cuts it crosses, and the lower bound (LB).

    Cut t lies between the t-th and the next distinct points value; a matching (of the kind
    considered) crosses it at least ``crossings[t]`` times, so the cut's squared gap is a
    feasible dual value wherever that is positive: an edge costs at least the squared gaps of
    the cuts it crosses, and LB is the sum of crossings times squared gaps."""
    import numpy as np

    values = np.unique(points)
    gaps = np.diff(values)
    dual = np.where(crossings > 0, gaps * gaps, 0)
    # below[v]: the dual values of the cuts below value v, so an edge crosses the difference.
    below = np.concatenate(([0], np.cumsum(dual))).astype(np.int64)
    position = np.searchsorted(values, points)
    reduced = edge_levels.copy()
    reduced[points_level] -= np.abs(below[position[first]] - below[position[second]])
    assert (reduced[points_level] >= 0).all()  # (a + b) ** 2 >= a ** 2 + b ** 2 for gaps >= 0
    return reduced, int((crossings * gaps * gaps).sum())


def _cut_crossings(points: NDArray[np.int64], leans: NDArray[np.int64] | None = None) -> NDArray[np.int64]:
    """How often a perfect matching must cross each cut (see ``_reduced_costs``): once where
    an odd number of nodes lie above it. With ``leans``, for a matching that never pairs two
    leans of one sign: the nodes above of one sign beyond those of the other sign and of no
    lean must each meet someone below."""
    import numpy as np

    values = np.unique(points)
    crossings = []
    for high in values[1:].tolist():
        above = points >= high
        needed = int(above.sum()) % 2
        if leans is not None:
            positive, negative = int((leans[above] > 0).sum()), int((leans[above] < 0).sum())
            even = int(above.sum()) - positive - negative
            needed = max(needed, positive - negative - even, negative - positive - even)
        crossings.append(needed)
    return np.array(crossings, dtype=np.int64)


def _at_most(costs: NDArray[np.int64], bound: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Which edges' cost vectors are lexicographically at most ``bound``."""
    import numpy as np

    less = np.zeros(costs.shape[1], dtype=bool)
    equal = np.ones(costs.shape[1], dtype=bool)
    for level, limit in zip(costs, bound):
        less |= equal & (level < limit)
        equal &= level == limit
    return less | equal


def _candidates(
    reduced: NDArray[np.int64],
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    count: int,
    per_node: int,
    points_level: int,
) -> NDArray[np.intp]:
    """The edges among the ``per_node`` cheapest of either end by the whole cost, by the cost
    up to the points entry (the nearest in the nodes' order among those), by the cost without
    the entry after the points, and (four times as many) by the cost before the points entry,
    which finds the floaters that avoid rematches and seat clashes (ties always to the nearest
    in the nodes' order)."""
    import numpy as np

    if per_node >= count - 1:
        return np.arange(len(first))
    distance = second - first
    upper = list(range(points_level + 1))
    orders = [  # the entries compared, and how many edges of each node (the last: four times)
        ([*upper, *range(points_level + 1, len(reduced))], per_node),
        (upper, per_node),
        ([*upper, *range(points_level + 2, len(reduced))], per_node),
        (list(range(points_level)), min(4 * per_node, count - 1)),
    ]
    chosen = np.zeros((count, count), dtype=bool)
    by_node = np.empty((count, count), dtype=np.int64)
    np.fill_diagonal(by_node, np.iinfo(np.int64).max)
    for levels, edges in orders:
        key = _sort_key(reduced, levels, distance)
        by_node[first, second] = key
        by_node[second, first] = key
        nearest = np.argpartition(by_node, edges - 1, axis=1)[:, :edges]
        chosen[np.repeat(np.arange(count), edges), nearest.ravel()] = True
    chosen |= chosen.T
    return np.flatnonzero(chosen[first, second])


def _sort_key(reduced: NDArray[np.int64], levels: list[int], distance: NDArray[np.intp]) -> NDArray[np.int64]:
    """One integer per edge that orders edges as their entries ``levels`` then ``distance`` do,
    each entry capped to a share of 52 bits (a cap only blurs the order of rare costly edges,
    which the exact check after the matching does not rely on)."""
    import numpy as np

    key = np.zeros(len(distance), dtype=np.int64)
    bits = (52 - 11) // max(1, len(levels))
    for level in levels:
        key = (key << bits) | np.minimum(reduced[level], (1 << bits) - 1)
    return (key << 11) | np.minimum(distance, (1 << 11) - 1)


def _solve(
    edge_levels: NDArray[np.int64],
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    edges: NDArray[np.intp],
    count: int,
) -> tuple[NDArray[np.intp], bool]:
    """The least-cost matching of most edges using only ``edges`` (indices), and whether it is
    perfect."""
    import numpy as np
    import rustworkx

    weights = _weights(edge_levels[:, edges], count // 2)
    graph = rustworkx.PyGraph()
    graph.add_nodes_from(range(count))
    graph.add_edges_from(list(zip(first[edges].tolist(), second[edges].tolist(), weights)))
    matching = rustworkx.max_weight_matching(graph, max_cardinality=True, weight_fn=_identity)
    ends = np.array(sorted(matching), dtype=np.intp).reshape(-1, 2)
    low, high = ends.min(axis=1), ends.max(axis=1)
    # The index of pair (i, j), i < j, in numpy.triu_indices(count, 1) order.
    index = low * count - low * (low + 1) // 2 + high - low - 1
    return np.sort(index), 2 * len(matching) == count


def _clean_edges(
    before_points: NDArray[np.int64],
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    matching: NDArray[np.intp],
    count: int,
) -> NDArray[np.intp]:
    """The edges of the nodes that ``matching`` leaves out, those of no cost before the points
    entry (or all of theirs, for a node that has none such)."""
    import numpy as np

    left_out = np.ones(count, dtype=bool)
    left_out[first[matching]] = left_out[second[matching]] = False
    touching = left_out[first] | left_out[second]
    clean = ~before_points.any(axis=0)
    has_clean = np.zeros(count, dtype=bool)
    has_clean[first[clean]] = has_clean[second[clean]] = True
    bare = left_out & ~has_clean
    return np.flatnonzero((touching & clean) | bare[first] | bare[second])


def _identity(weight: int) -> int:
    return weight


def _weights(edge_levels: NDArray[np.int64], pairs: int) -> list[int]:
    """One integer weight per edge, larger for cheaper edges, ordering whole matchings exactly as
    their cost vectors: entry k is weighted by more than all later entries of ``pairs`` edges."""
    import numpy as np

    width = edge_levels.shape[0]
    largest = [int(level.max(initial=0)) for level in edge_levels]
    scale = [1] * width
    for index in range(width - 2, -1, -1):
        scale[index] = scale[index + 1] * (largest[index + 1] * (pairs + 1) + 1)
    top = sum(scale[index] * largest[index] for index in range(width)) + 1
    # rustworkx adds and doubles weights in 128-bit integers; 1,024 entrants stay far below.
    if top * (pairs + 1) >= 2**120:
        raise ValueError("the costs are too large to weigh exactly")
    if top < 2**62:
        scales = np.array(scale, dtype=np.int64)
        return (top - (edge_levels * scales[:, None]).sum(axis=0)).tolist()
    columns = [level.tolist() for level in edge_levels]
    return [top - sum(entry * weight for entry, weight in zip(entries, scale)) for entries in zip(*columns)]
