"""The Swiss format: entrants of equal points meet, nobody meets twice, nobody gets two byes, and
everyone's seat counts stay within one of each other wherever the pairings allow. Rounds: as
many as asked, by default ceil(log2 n), at most as many as a round robin has and few enough
that nobody needs a second bye. Standings: match points, Buchholz, game score, head-to-head,
seed (standings.py).

This module pairs two seats; swiss_tables.py pairs tables of 3 to 5.

Two seats: a minimum-cost perfect matching (rustworkx's blossom algorithm, lineit/formats/
matching.py) over the entrants and, with an odd field, a bye node. Fields of more than 128
entrants are matched on a sparse graph proved to lose nothing down to entry 4 below (the points
gaps); entries 5 and 6 are then least on that graph, not always on the complete one. Costs are compared entry by entry (each entry outweighs any sum of
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
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from .matching import min_cost_perfect_matching
from .model import ROUNDS, EntrantId, FormatError, Options, TournamentState
from .registry import Table, TournamentFormat, register
from .standings import history, standings
from .swiss_tables import choose_table_byes, fill_tables

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

SWISS = "swiss"


def max_swiss_rounds(count: int, table_size: int) -> int:
    """No more rounds than a round robin has (beyond, rematches are certain), and few enough
    that nobody needs a second bye."""
    most = count - 1 if count % 2 == 0 or table_size > 2 else count
    byes = count % table_size
    if byes:
        most = min(most, count // byes)
    return max(1, most)


def default_swiss_rounds(count: int, table_size: int) -> int:
    return min(max_swiss_rounds(count, table_size), max(1, math.ceil(math.log2(count))))


class Swiss(TournamentFormat):
    name = SWISS
    label = "Swiss"
    options = (ROUNDS,)
    tie_breaks = ("buchholz", "game_score", "head_to_head")

    def check(self, entrants: int, options: Options) -> None:
        if options.rounds is not None:
            most = max_swiss_rounds(entrants, options.table_size)
            if not 1 <= options.rounds <= most:
                raise FormatError(
                    f"a Swiss of {entrants} entrants at tables of {options.table_size} plays 1 to {most} rounds, not {options.rounds}"
                )

    def prepare(self, entrants: int, options: Options) -> Options:
        if options.rounds is None:
            return dataclasses.replace(options, rounds=default_swiss_rounds(entrants, options.table_size))
        return options

    def pair(self, state: TournamentState) -> list[Table] | None:
        if len(state.rounds) + 1 > (state.options.rounds or 0):
            return None
        return swiss_round(state)

    def planned_rounds(self, state: TournamentState) -> int | None:
        return state.options.rounds

    def describe(self, options: Options) -> list[str]:
        return [f"{options.rounds} rounds"]


def swiss_round(state: TournamentState) -> list[Table]:
    """The next round's tables: pairs (two seats) or tables, then the byes."""
    size = state.options.table_size
    rows = standings(state)
    order = [row.entrant for row in rows]
    unit = 2 * (size - 1)  # points come in multiples of 1 / (2 (k - 1))
    points = {row.entrant: round(row.points * unit) for row in rows}
    met, byes, book = history(state)
    if size == 2:
        lean = {entrant: book.lean(entrant) for entrant in order}
        pairs, bye = pair_two_seats(order, points, met, byes, lean, book.last)
        tables: list[tuple[EntrantId, ...]] = [
            book.seat_pair(pair, flip=index % 2 == 1) for index, pair in enumerate(pairs)
        ]
        resting = [bye] if bye is not None else []
    else:
        resting = choose_table_byes(order, byes, len(order) % size)
        playing = [entrant for entrant in order if entrant not in resting]
        tables = [book.seat(table) for table in fill_tables(playing, points, met, size, book)]
    paired: list[Table] = [(table, None) for table in tables]
    return paired + [((entrant,), None) for entrant in resting]


# --- two seats: the matching's costs ---------------------------------------------------------------


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
    import numpy as np

    last_seat = last_seat or {}
    edge_levels, line = two_seat_costs(order, points, met, byes, seat_lean, last_seat)
    leans = np.array([seat_lean.get(entrant, 0) for entrant in order] + [0] * (len(order) % 2), dtype=np.int64)
    pairs: list[tuple[EntrantId, EntrantId]] = []
    bye: EntrantId | None = None
    for one, other in min_cost_perfect_matching(edge_levels, len(line), line, POINTS_LEVEL, leans):
        if other == len(order):  # the bye node comes last
            bye = order[one]
        else:
            pairs.append((order[one], order[other]))  # one < other: the better placed first
    return sorted(pairs, key=_rank_key(order)), bye


POINTS_LEVEL = 3  # the entry of the cost that is the squared points gap


def two_seat_costs(
    order: Sequence[EntrantId],
    points: Mapping[EntrantId, int],
    met: Mapping[frozenset[EntrantId], int],
    byes: Mapping[EntrantId, int],
    seat_lean: Mapping[EntrantId, int],
    last_seat: Mapping[EntrantId, int],
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The cost of every pairing (see the module's notes), entry by entry: ``edge_levels[k, e]``
    for the e-th pair of places (i, j), i < j, in ``numpy.triu_indices`` order, place
    ``len(order)`` being the bye node (odd fields); and each node's points on the line (the bye
    node's "minus half a point")."""
    import numpy as np

    count = len(order)
    nodes = count + count % 2
    rank = {entrant: index for index, entrant in enumerate(order)}
    group_position, group_size = _score_groups(order, points)
    line = np.array([points[entrant] for entrant in order] + [-1] * (count % 2), dtype=np.int64)
    lean = np.array([seat_lean.get(entrant, 0) for entrant in order] + [0] * (count % 2), dtype=np.int64)
    last = np.array([last_seat.get(entrant, -1) for entrant in order] + [-1] * (count % 2), dtype=np.int64)
    position = np.array([group_position[entrant] for entrant in order] + [0] * (count % 2), dtype=np.int64)
    half = np.array([group_size[entrant] // 2 for entrant in order] + [0] * (count % 2), dtype=np.int64)
    first, second = np.triu_indices(nodes, k=1)
    levels = np.zeros((6, len(first)), dtype=np.int64)
    met_counts = np.zeros((nodes, nodes), dtype=np.int64)
    for pair, times in met.items():
        one, other = (rank.get(entrant) for entrant in pair)
        if one is not None and other is not None:
            met_counts[one, other] = met_counts[other, one] = times
    levels[1] = met_counts[first, second]
    # Both due the same seat because of their counts: one of them drifts to |lean| + 1.
    lean_first, lean_second = lean[first], lean[second]
    levels[2] = np.where(lean_first * lean_second > 0, np.minimum(np.abs(lean_first), np.abs(lean_second)), 0)
    levels[3] = (line[first] - line[second]) ** 2
    # Both even and due the same seat by alternation: one of them sits there twice running.
    last_first = last[first]
    levels[4] = (lean_first == 0) & (lean_second == 0) & (last_first >= 0) & (last_first == last[second])
    # Within a score group, top half against bottom half: (distance - half the group) squared.
    distance = np.abs(position[first] - position[second])
    levels[5] = np.where(line[first] == line[second], (distance - half[first]) ** 2, 0)
    if count % 2:
        to_bye = second == count  # the bye node's edges (never a rematch, a clash or alike)
        levels[:, to_bye] = 0
        levels[0, to_bye] = [byes.get(entrant, 0) for entrant in order]
        levels[3, to_bye] = (line[:count] + 1) ** 2
        levels[5, to_bye] = count - np.arange(count)  # the lowest-placed first
    return levels, line


def _rank_key(order: Sequence[EntrantId]) -> Callable[[tuple[EntrantId, EntrantId]], int]:
    rank = {entrant: index for index, entrant in enumerate(order)}
    return lambda pair: rank[pair[0]]


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


register(Swiss())
