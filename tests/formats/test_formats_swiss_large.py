"""Swiss pairings at two seats against the old algorithm (every pairing's cost built pair by pair,
networkx's blossom over the complete graph): the same costs, the same least total cost on small
fields, the same cost down to the points gaps on the sparse graph that large fields use, and at
1,024 entrants no rematch, no seat clash and the fewest, shortest floats."""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

import networkx as nx
import numpy as np
import pytest
from formats_helpers import field, play_out, random_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

from lineit.formats import SWISS, Options, TournamentState, first_round, matching, next_round, swiss, swiss_tables
from lineit.formats.standings import history, standings
from lineit.formats.swiss import max_swiss_rounds


def pairing_inputs(state: TournamentState) -> dict[str, Any]:
    """What the next round's pairing is given (as lineit.formats.swiss passes it)."""
    rows = standings(state)
    met, byes, book = history(state)
    order = [row.entrant for row in rows]
    return {
        "order": order,
        "points": {row.entrant: round(row.points * 2) for row in rows},
        "met": met,
        "byes": byes,
        "seat_lean": {entrant: book.lean(entrant) for entrant in order},
        "last_seat": dict(book.last),
    }


def every_round_of(count: int, rounds: int, seed: int) -> list[dict[str, Any]]:
    """The pairing inputs of rounds 2 .. ``rounds`` of a Swiss played with random results."""
    state = play_out(SWISS, count, Options(table_size=2, rounds=rounds), seed=seed, results_seed=seed)
    return [pairing_inputs(dataclasses.replace(state, rounds=state.rounds[:done])) for done in range(1, rounds)]


def old_costs(order, points, met, byes, seat_lean, last_seat):  # type: ignore[no-untyped-def]
    """The costs as the networkx version built them, pair by pair (copied from it)."""
    rank = {entrant: index for index, entrant in enumerate(order)}
    group_position, group_size = swiss._score_groups(order, points)
    costs = {}
    for first, second in itertools.combinations(order, 2):
        lean_first, lean_second = seat_lean.get(first, 0), seat_lean.get(second, 0)
        clash = min(abs(lean_first), abs(lean_second)) if lean_first * lean_second > 0 else 0
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
    if len(order) % 2:
        for entrant in order:
            costs[(entrant, "bye")] = (
                byes.get(entrant, 0),
                0,
                0,
                (points[entrant] + 1) ** 2,
                0,
                len(order) - rank[entrant],
            )
    return costs


def old_least_cost(costs: dict[tuple[Any, Any], tuple[int, ...]], nodes: int) -> tuple[int, ...]:
    """The least total cost, by networkx's matching over the complete graph (as the old code)."""
    pairs = nodes // 2 + 1
    width = len(next(iter(costs.values())))
    scale = [1] * width
    for index in range(width - 2, -1, -1):
        scale[index] = scale[index + 1] * (max(cost[index + 1] for cost in costs.values()) * pairs + 1)
    total = {edge: sum(entry * weight for entry, weight in zip(cost, scale)) for edge, cost in costs.items()}
    top = max(total.values()) + 1
    graph = nx.Graph()
    for (first, second), value in total.items():
        graph.add_edge(first, second, weight=top - value)
    matching = nx.max_weight_matching(graph, maxcardinality=True, weight="weight")
    return total_cost(costs, [(a, b) for a, b in matching])


def total_cost(costs: dict[tuple[Any, Any], tuple[int, ...]], pairs: list[tuple[Any, Any]]) -> tuple[int, ...]:
    found = [costs[(a, b)] if (a, b) in costs else costs[(b, a)] for a, b in pairs]
    return tuple(sum(column) for column in zip(*found))


def new_pairs(inputs: dict[str, Any]) -> list[tuple[Any, Any]]:
    pairs, bye = swiss.pair_two_seats(**inputs)
    return [*pairs, *([(bye, "bye")] if bye is not None else [])]


@settings(max_examples=20, deadline=None)
@given(count=st.integers(2, 40), seed=st.integers(0, 10**6), data=st.data())
def test_the_costs_are_the_old_costs_pair_by_pair(count: int, seed: int, data: st.DataObject) -> None:
    rounds = data.draw(st.integers(2, max(2, min(8, max_swiss_rounds(count, 2)))))
    for inputs in every_round_of(count, rounds, seed) if max_swiss_rounds(count, 2) >= 2 else []:
        levels, _ = swiss.two_seat_costs(**inputs)
        order = inputs["order"]
        names = [*order, "bye"]
        first, second = np.triu_indices(len(order) + len(order) % 2, k=1)
        new = {(names[a], names[b]): tuple(levels[:, edge].tolist()) for edge, (a, b) in enumerate(zip(first, second))}
        assert new == old_costs(**inputs)


@settings(max_examples=25, deadline=None)
@given(count=st.integers(3, 48), seed=st.integers(0, 10**6), data=st.data())
def test_small_fields_the_same_least_total_cost_as_networkx(count: int, seed: int, data: st.DataObject) -> None:
    rounds = data.draw(st.integers(2, max(2, max_swiss_rounds(count, 2))))
    for inputs in every_round_of(count, rounds, seed) if max_swiss_rounds(count, 2) >= 2 else []:
        costs = old_costs(**inputs)
        assert total_cost(costs, new_pairs(inputs)) == old_least_cost(costs, len(inputs["order"]))


@settings(max_examples=15, deadline=None)
@given(count=st.integers(20, 90), seed=st.integers(0, 10**6), data=st.data())
def test_the_sparse_graph_of_large_fields_loses_nothing_down_to_the_points_gaps(
    count: int, seed: int, data: st.DataObject
) -> None:
    """Byes, rematches, seat clashes and points gaps as networkx's least cost; only the two last
    entries (seat alternation, top half against bottom half) may cost more on the sparse graph."""
    rounds = data.draw(st.integers(2, min(12, max_swiss_rounds(count, 2))))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matching, "FULL_GRAPH_NODES", 0)  # as a field of more than 128 entrants
        patch.setattr(matching, "FIRST_EDGES_PER_NODE", 2)  # as sparse as 8 of 1,024
        for inputs in every_round_of(count, rounds, seed):
            costs = old_costs(**inputs)
            new, old = total_cost(costs, new_pairs(inputs)), old_least_cost(costs, len(inputs["order"]))
            assert new[: swiss.POINTS_LEVEL + 1] == old[: swiss.POINTS_LEVEL + 1]
            assert new >= old


@settings(max_examples=12, deadline=None)
@given(count=st.integers(20, 70), seed=st.integers(0, 10**6), data=st.data())
def test_the_graph_pruned_by_the_lower_bound_keeps_a_least_cost_matching(
    count: int, seed: int, data: st.DataObject
) -> None:
    """When the sparse matching does not meet the lower bound, the edges that the bound cannot
    rule out are matched: exactly networkx's least total cost, every entry."""
    rounds = data.draw(st.integers(2, min(12, max_swiss_rounds(count, 2))))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matching, "FULL_GRAPH_NODES", 0)
        patch.setattr(matching, "FIRST_EDGES_PER_NODE", 2)
        patch.setattr(matching, "_certified", lambda *args: False)  # always prune and match again
        for inputs in every_round_of(count, rounds, seed):
            costs = old_costs(**inputs)
            assert total_cost(costs, new_pairs(inputs)) == old_least_cost(costs, len(inputs["order"]))


def fewest_float_cost(points: list[int], leans: list[int]) -> int:
    """The least points cost without rematches or seat clashes, counted cut by cut: above each
    cut, the entrants of one lean sign beyond the others (and the odd one out) must meet someone
    below it, across every cut between, each paying its squared gap."""
    values = sorted(set(points))
    cost = 0
    for low, high in itertools.pairwise(values):
        above = [lean for point, lean in zip(points, leans) if point >= high]
        plus, minus = sum(lean > 0 for lean in above), sum(lean < 0 for lean in above)
        zero = len(above) - plus - minus
        cost += max(len(above) % 2, plus - minus - zero, minus - plus - zero) * (high - low) ** 2
    return cost


def test_1024_entrants_no_rematch_no_seat_clash_and_the_fewest_shortest_floats() -> None:
    rng = random.Random(5)
    state = first_round(SWISS, field(1024), Options(table_size=2, rounds=5), seed=5)
    met: set[frozenset[int]] = set()
    for _ in range(4):
        assert state.pending is not None
        met.update(frozenset(p.entrants) for p in state.pending.pairings)
        state = next_round(state, [random_outcome(p, rng) for p in state.pending.pairings])
        inputs = pairing_inputs(dataclasses.replace(state, rounds=state.rounds[:-1]))
        assert state.pending is not None
        pairs = [p.entrants for p in state.pending.pairings]
        assert sorted(e for pair in pairs for e in pair) == sorted(inputs["order"])
        assert not any(frozenset(pair) in met for pair in pairs)
        lean, points = inputs["seat_lean"], inputs["points"]
        assert all(lean[one] * lean[other] <= 0 for one, other in pairs)
        order = inputs["order"]
        floats = sum((points[one] - points[other]) ** 2 for one, other in pairs)
        assert floats == fewest_float_cost([points[e] for e in order], [lean[e] for e in order])


def old_improve(tables, total):  # type: ignore[no-untyped-def]
    """The swaps of tables as the old code made them (copied from it): whole costs each time."""
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


@settings(max_examples=30, deadline=None)
@given(table_size=st.integers(3, 5), tables=st.integers(2, 12), seed=st.integers(0, 10**6))
def test_table_swaps_are_the_old_swaps(table_size: int, tables: int, seed: int) -> None:
    rng = random.Random(seed)
    entrants = list(range(table_size * tables))
    points = {entrant: rng.randrange(0, 3) for entrant in entrants}  # ties: the excess decides
    met = {frozenset(pair): rng.randrange(1, 3) for pair in itertools.combinations(entrants, 2) if rng.random() < 0.2}
    seats = swiss_tables.SeatBook(table_size)
    for _ in range(rng.randrange(0, 6 * tables)):  # seat counts apart: a seat excess to lower
        seats.record(tuple(rng.sample(entrants, table_size)))

    def cheap(table):  # type: ignore[no-untyped-def]
        pairs = list(itertools.combinations(table, 2))
        return sum(met.get(frozenset(p), 0) for p in pairs), sum((points[a] - points[b]) ** 2 for a, b in pairs)

    def total(some):  # type: ignore[no-untyped-def]
        costs = [(cheap(t)[0], seats.excess(t), cheap(t)[1]) for t in some]
        return tuple(sum(column) for column in zip(*costs))

    start = [entrants[at : at + table_size] for at in range(0, len(entrants), table_size)]
    rng.shuffle(start)
    old = old_improve([list(table) for table in start], total)
    new = swiss_tables._improve([list(table) for table in start], cheap, seats.excess)
    screened = swiss_tables._improve(
        [list(table) for table in start], cheap, seats.excess, swiss_tables._SwapScreen(entrants, points, met)
    )
    assert new == old
    assert screened == old
