"""The round robin format, and its schedules. The whole schedule is known before the first match.

Two seats: the circle method (Berger tables). With an odd number of entrants a phantom sits in
the fixed position, so whoever meets it has the bye; every entrant starts in the first seat
(n-1)/2 times with an odd field and n/2 or n/2-1 times with an even one. A second cycle swaps
the seats of the first.

Tables of 3 to 5 (a "social golfer" schedule, found by local search): each round the entrants
with fewest byes so far sit out (n mod k of them), the others are split into tables so that
pairs that have met least meet now (a pair's cost grows fourfold with each meeting), improved by
swapping two entrants of different tables while that helps. Rounds are added until every pair
has met and everyone has sat out equally often (byes come in blocks of n / gcd(n, n mod k)
rounds). Seats are then balanced over the whole schedule (seating.py). ``cycles`` repeats the
schedule with the seats rotated by one.

Standings: points per match played, then game score per match, then head-to-head, then the seed
(standings.py).
"""

from __future__ import annotations

import functools
import itertools
import random

from .model import CYCLES, FormatError, Options, Standing, TournamentState, derived_seed
from .registry import Table, TournamentFormat, register
from .seating import equitable_seats
from .standings import standings

ROUND_ROBIN = "round-robin"

Schedule = list[list[tuple[int, ...]]]  # rounds of tables of positions; a 1-tuple is a bye


def berger_rounds(count: int) -> Schedule:
    """Rounds of two-seat pairings of positions 0..count-1, seat order included."""
    players: list[int | None] = ([None] if count % 2 else []) + list(range(count))
    size = len(players)
    schedule: Schedule = []
    for number in range(size - 1):
        tables: list[tuple[int, ...]] = []
        byes: list[tuple[int, ...]] = []
        for index in range(size // 2):
            first, second = players[index], players[size - 1 - index]
            if (index == 0 and number % 2) or index % 2 == 1:
                first, second = second, first
            if first is None or second is None:
                byes.append((second if first is None else first,))  # type: ignore[arg-type]
            else:
                tables.append((first, second))
        schedule.append(tables + byes)
        players = [players[0], players[-1], *players[1:-1]]
    return schedule


def table_rounds(count: int, table_size: int, rng: random.Random) -> Schedule:
    """Rounds of tables of ``table_size`` (seats not yet balanced) until every pair has met."""
    byes_per_round = count % table_size
    meetings = [[0] * count for _ in range(count)]
    unmet = count * (count - 1) // 2
    byes = [0] * count
    schedule: Schedule = []
    while unmet:
        resting = _choose_byes(byes, byes_per_round, rng)
        playing = [position for position in range(count) if position not in resting]
        tables = _split(playing, table_size, meetings, rng)
        for table in tables:
            for first, second in itertools.combinations(table, 2):
                unmet -= meetings[first][second] == 0
                meetings[first][second] += 1
                meetings[second][first] += 1
        for position in resting:
            byes[position] += 1
        schedule.append([tuple(table) for table in tables] + [(position,) for position in sorted(resting)])
    return schedule


def seat_schedule(schedule: Schedule, table_size: int) -> Schedule:
    """The same schedule with seats balanced within one for everyone (seating.equitable_seats)."""
    seated = iter(equitable_seats([table for round_ in schedule for table in round_ if len(table) > 1], table_size))
    return [[next(seated) if len(table) > 1 else table for table in round_] for round_ in schedule]


def _choose_byes(byes: list[int], count: int, rng: random.Random) -> set[int]:
    order = sorted(range(len(byes)), key=lambda position: (byes[position], rng.random()))
    return set(order[:count])


def _split(playing: list[int], table_size: int, meetings: list[list[int]], rng: random.Random) -> list[list[int]]:
    weight = [[4**met for met in row] for row in meetings]
    order = playing[:]
    rng.shuffle(order)
    tables = [order[start : start + table_size] for start in range(0, len(order), table_size)]
    improved = True
    while improved:
        improved = False
        for first, second in itertools.combinations(tables, 2):
            for i, j in itertools.product(range(table_size), repeat=2):
                a, b = first[i], second[j]
                gain = sum(weight[a][x] - weight[b][x] for x in first if x != a)
                gain += sum(weight[b][y] - weight[a][y] for y in second if y != b)
                if gain > 0:
                    first[i], second[j] = b, a
                    improved = True
    _cover_one_new_pair(tables, meetings)
    return tables


def _cover_one_new_pair(tables: list[list[int]], meetings: list[list[int]]) -> None:
    """If the search met no new pair while two of this round's players never met, seat one such
    pair together: every round then meets a new pair or rests someone new, so the schedule ends."""
    if any(meetings[a][b] == 0 for table in tables for a, b in itertools.combinations(table, 2)):
        return
    where = {entrant: index for index, table in enumerate(tables) for entrant in table}
    for first, second in itertools.combinations(sorted(where), 2):
        if meetings[first][second] == 0:
            table, other = tables[where[first]], tables[where[second]]
            moved = next(entrant for entrant in table if entrant != first)
            table[table.index(moved)] = second
            other[other.index(second)] = moved
            return


def rotate_seats(schedule: Schedule, shift: int) -> Schedule:
    """The same schedule with every table's seats moved ``shift`` places (the next cycle)."""
    return [[table[shift % len(table) :] + table[: shift % len(table)] for table in round_] for round_ in schedule]


@functools.lru_cache(maxsize=32)
def schedule(count: int, table_size: int, seed: int, cycles: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The whole schedule: every round's tables of positions in the seeding."""
    if table_size == 2:
        once = berger_rounds(count)
        rounds = [round_ for cycle in range(cycles) for round_ in rotate_seats(once, cycle)]
    else:
        # "round-robin" names this draw in the seed: it stays as it is, whatever the format's name.
        once = table_rounds(count, table_size, random.Random(derived_seed(seed, "round-robin")))
        rounds = seat_schedule([round_ for _ in range(cycles) for round_ in once], table_size)
    return tuple(tuple(tuple(table) for table in round_) for round_ in rounds)


def schedule_of(state: TournamentState) -> tuple[tuple[tuple[int, ...], ...], ...]:
    return schedule(len(state.entrants), state.options.table_size, state.seed, state.options.cycles)


class RoundRobin(TournamentFormat):
    name = ROUND_ROBIN
    label = "round robin"
    options = (CYCLES,)
    tie_breaks = ("game_score", "head_to_head")

    def check(self, entrants: int, options: Options) -> None:
        if not 1 <= options.cycles <= 10:
            raise FormatError(f"cycles must be from 1 to 10, not {options.cycles}")

    def pair(self, state: TournamentState) -> list[Table] | None:
        rounds = schedule_of(state)
        number = len(state.rounds) + 1
        if number > len(rounds):
            return None
        ids = [entrant.id for entrant in state.entrants]
        return [(tuple(ids[position] for position in table), None) for table in rounds[number - 1]]

    def standings(self, state: TournamentState) -> list[Standing]:
        return standings(state, per_match=True)

    def planned_rounds(self, state: TournamentState) -> int | None:
        return len(schedule_of(state))


register(RoundRobin())
