"""The function-level API: start a tournament, feed it results round by round, read the table.

    state = first_round(SWISS, entrants, Options(table_size=2, rounds=5), seed=7)
    while not is_finished(state):
        outcomes = [play(pairing) for pairing in state.pending.pairings if not pairing.bye]
        state = next_round(state, outcomes)
    final_standings(state)

Everything is a pure function of the state, which is plain data (``TournamentState.to_dict``):
the same entrants, options, seed and results always give the same pairings.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Sequence
from typing import Any

from . import bracket as brackets
from . import roundrobin, swiss
from .double_tables import build_double_tables
from .model import (
    DOUBLE,
    FORMATS,
    MAX_ENTRANTS,
    MAX_TABLE,
    MIN_TABLE,
    ROUND_ROBIN,
    SINGLE,
    SWISS,
    Entrant,
    EntrantId,
    FormatError,
    MatchOutcome,
    Options,
    Pairing,
    Round,
    Standing,
    TournamentState,
    derived_seed,
)
from .seating import SeatBook
from .standings import standings as table_standings


def seed_order(entrants: Sequence[Entrant], seed: int) -> list[Entrant]:
    """Seeds: by rating, highest first (no rating last); equal ratings in an order drawn from the
    tournament seed, so that no list order favours anyone."""
    rng = random.Random(derived_seed(seed, "seeding"))
    draw = {entrant.id: rng.random() for entrant in entrants}
    return sorted(
        entrants,
        key=lambda e: (e.rating is None, -(e.rating or 0.0), draw[e.id]),
    )


def validate(format: str, entrants: Sequence[Entrant], options: Options) -> None:
    if format not in FORMATS:
        raise FormatError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    size = options.table_size
    if not isinstance(size, int) or not MIN_TABLE <= size <= MAX_TABLE:
        raise FormatError(f"tables have {MIN_TABLE} to {MAX_TABLE} seats, not {size!r}")
    ids = [entrant.id for entrant in entrants]
    if len(set(ids)) != len(ids):
        raise FormatError("two entrants share an id")
    if not max(2, size) <= len(ids) <= MAX_ENTRANTS:
        raise FormatError(
            f"a tournament at tables of {size} needs {max(2, size)} to {MAX_ENTRANTS} entrants, got {len(ids)}"
        )
    if options.games_per_pairing < 1:
        raise FormatError("each pairing plays at least one game")
    if format == ROUND_ROBIN and not 1 <= options.cycles <= 10:
        raise FormatError(f"cycles must be from 1 to 10, not {options.cycles}")
    if format == SWISS and options.rounds is not None:
        most = max_swiss_rounds(len(ids), size)
        if not 1 <= options.rounds <= most:
            raise FormatError(
                f"a Swiss of {len(ids)} entrants at tables of {size} plays 1 to {most} rounds, not {options.rounds}"
            )
    if format in (SINGLE, DOUBLE):
        advance = advance_of(options)
        if not 1 <= advance <= size // 2:
            raise FormatError(f"at tables of {size}, 1 to {size // 2} of each table can go on, not {advance}")


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


def advance_of(options: Options) -> int:
    return options.advance if options.advance is not None else options.table_size // 2


def first_round(
    format: str, entrants: Sequence[Entrant], options: Options | None = None, seed: int = 0
) -> TournamentState:
    """A new tournament with its first round paired."""
    options = options or Options()
    validate(format, entrants, options)
    if format == SWISS and options.rounds is None:
        options = dataclasses.replace(options, rounds=default_swiss_rounds(len(entrants), options.table_size))
    state = TournamentState(format=format, options=options, entrants=seed_order(entrants, seed), seed=seed)
    return _with_next_round(state)


def next_round(state: TournamentState, outcomes: Sequence[MatchOutcome]) -> TournamentState:
    """Record the pending round's outcomes (one per pairing that is not a bye) and pair the next
    round, unless the tournament is over. Returns a new state; ``state`` is left as it was."""
    pending = state.pending
    if pending is None:
        raise FormatError("no round is waiting for results: the tournament is over")
    expected = {(p.round, p.table): p for p in pending.pairings if not p.bye}
    given = {(o.round, o.table): o for o in outcomes}
    if len(given) != len(outcomes) or set(given) != set(expected):
        missing = sorted(set(expected) - set(given))
        extra = sorted(set(given) - set(expected))
        raise FormatError(f"round {pending.number} needs one outcome per match: missing {missing}, unexpected {extra}")
    for key, outcome in given.items():
        if sorted(outcome.entrants) != sorted(expected[key].entrants):
            raise FormatError(f"the outcome of round {key[0]} table {key[1]} names other entrants than its pairing")
    ordered = [given[(p.round, p.table)] for p in pending.pairings if not p.bye]
    new = TournamentState.from_dict(state.to_dict())
    new.rounds[-1].outcomes = [MatchOutcome.from_dict(o.to_dict()) for o in ordered]
    return _with_next_round(new)


def is_finished(state: TournamentState) -> bool:
    return state.pending is None


def standings(state: TournamentState) -> list[Standing]:
    """The table after the rounds played so far (final once ``is_finished``)."""
    if state.format in (SINGLE, DOUBLE):
        return _elimination_standings(state)
    return table_standings(state)


def final_standings(state: TournamentState) -> list[Standing]:
    if not is_finished(state):
        raise FormatError("the tournament is not over yet")
    return standings(state)


def planned_rounds(state: TournamentState) -> int | None:
    """Rounds in all when known in advance (round robin, Swiss); None for elimination."""
    if state.format == ROUND_ROBIN:
        return len(
            _round_robin_schedule(len(state.entrants), state.options.table_size, state.seed, state.options.cycles)
        )
    if state.format == SWISS:
        return state.options.rounds
    return None


def bracket_json(state: TournamentState) -> dict[str, Any] | None:
    """The bracket with results so far (elimination only), for the API and pages."""
    if state.format not in (SINGLE, DOUBLE):
        return None
    names = {entrant.id: entrant.name for entrant in state.entrants}
    return brackets.to_json(bracket_state(state), names)


# --- pairing each round ------------------------------------------------------------------------


def _with_next_round(state: TournamentState) -> TournamentState:
    number = len(state.rounds) + 1
    if state.format == ROUND_ROBIN:
        tables = _round_robin_round(state, number)
    elif state.format == SWISS:
        tables = _swiss_round(state, number) if number <= (state.options.rounds or 0) else None
    else:
        tables = _elimination_round(state)
    if tables is not None:
        state.rounds.append(Round(number=number, pairings=_pairings(state, number, tables)))
    return state


def _pairings(
    state: TournamentState, number: int, tables: list[tuple[tuple[EntrantId, ...], str | None]]
) -> list[Pairing]:
    pairings = []
    for table, (entrants, slot) in enumerate(tables, start=1):
        pairings.append(
            Pairing(
                round=number,
                table=table,
                entrants=entrants,
                bye=len(entrants) == 1,
                slot=slot,
                match_seed=derived_seed(state.seed, "match", number, table),
            )
        )
    return pairings


@functools.lru_cache(maxsize=32)
def _round_robin_schedule(
    count: int, table_size: int, seed: int, cycles: int
) -> tuple[tuple[tuple[int, ...], ...], ...]:
    if table_size == 2:
        once = roundrobin.berger_rounds(count)
        schedule = [round_ for cycle in range(cycles) for round_ in roundrobin.rotate_seats(once, cycle)]
    else:
        once = roundrobin.table_rounds(count, table_size, random.Random(derived_seed(seed, "round-robin")))
        schedule = roundrobin.seat_schedule([round_ for _ in range(cycles) for round_ in once], table_size)
    return tuple(tuple(tuple(table) for table in round_) for round_ in schedule)


def _round_robin_round(state: TournamentState, number: int) -> list[tuple[tuple[EntrantId, ...], str | None]] | None:
    schedule = _round_robin_schedule(len(state.entrants), state.options.table_size, state.seed, state.options.cycles)
    if number > len(schedule):
        return None
    ids = [entrant.id for entrant in state.entrants]
    return [(tuple(ids[position] for position in table), None) for table in schedule[number - 1]]


def _history(state: TournamentState) -> tuple[dict[frozenset[EntrantId], int], dict[EntrantId, int], SeatBook]:
    met: dict[frozenset[EntrantId], int] = {}
    byes: dict[EntrantId, int] = {}
    book = SeatBook(state.options.table_size)
    for round_ in state.rounds:
        for pairing in round_.pairings:
            if pairing.bye:
                byes[pairing.entrants[0]] = byes.get(pairing.entrants[0], 0) + 1
                continue
            book.record(pairing.entrants)
            for index, first in enumerate(pairing.entrants):
                for second in pairing.entrants[index + 1 :]:
                    key = frozenset((first, second))
                    met[key] = met.get(key, 0) + 1
    return met, byes, book


def _swiss_round(state: TournamentState, number: int) -> list[tuple[tuple[EntrantId, ...], str | None]]:
    size = state.options.table_size
    order = [row.entrant for row in table_standings(state)]
    unit = 2 * (size - 1)  # points come in multiples of 1 / (2 (k - 1))
    points = {row.entrant: round(row.points * unit) for row in table_standings(state)}
    met, byes, book = _history(state)
    if size == 2:
        lean = {entrant: book.lean(entrant) for entrant in order}
        pairs, bye = swiss.pair_two_seats(order, points, met, byes, lean, book.last)
        tables: list[tuple[EntrantId, ...]] = [
            book.seat_pair(pair, flip=index % 2 == 1) for index, pair in enumerate(pairs)
        ]
        resting = [bye] if bye is not None else []
    else:
        resting = swiss.choose_table_byes(order, byes, len(order) % size)
        playing = [entrant for entrant in order if entrant not in resting]
        tables = [book.seat(table) for table in swiss.fill_tables(playing, points, met, size, book)]
    paired: list[tuple[tuple[EntrantId, ...], str | None]] = [(table, None) for table in tables]
    return paired + [((entrant,), None) for entrant in resting]


# --- elimination ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _bracket(format: str, count: int, table_size: int, advance: int, reset: bool) -> brackets.Bracket:
    if format == DOUBLE and table_size == 2:
        return brackets.build_double(count, reset)
    if format == DOUBLE:
        return build_double_tables(count, table_size, advance, reset)
    return brackets.build_single(count, table_size, advance)


def bracket_of(state: TournamentState) -> brackets.Bracket:
    options = state.options
    return _bracket(
        state.format, len(state.entrants), options.table_size, advance_of(options), options.grand_final_reset
    )


def bracket_state(state: TournamentState) -> brackets.BracketState:
    seeds = state.seeds
    played: dict[str, list[EntrantId]] = {}
    for round_ in state.played_rounds():
        slots = {(p.round, p.table): p.slot for p in round_.pairings}
        for outcome in round_.outcomes or []:
            slot = slots[(outcome.round, outcome.table)]
            ranked = sorted(outcome.results, key=lambda r: (r.place, seeds[r.entrant]))
            played[slot or ""] = [result.entrant for result in ranked]
    return brackets.resolve(bracket_of(state), [entrant.id for entrant in state.entrants], played)


def _elimination_round(state: TournamentState) -> list[tuple[tuple[EntrantId, ...], str | None]] | None:
    filled = bracket_state(state)
    ready = filled.ready()
    if not ready:
        if filled.champion is None:
            raise RuntimeError("an elimination bracket with no match to play and no champion")
        return None
    _, _, book = _history(state)
    tables: list[tuple[tuple[EntrantId, ...], str | None]] = []
    for match_id in ready:
        present = tuple(e for e in filled.matches[match_id].entrants if e is not None)
        tables.append((book.seat(present), match_id))
    return tables


def _elimination_standings(state: TournamentState) -> list[Standing]:
    filled = bracket_state(state)
    base = {row.entrant: row for row in table_standings(state)}
    seeds = state.seeds
    # Still in the running: above everyone knocked out, by seed.
    top = max((key[0] for key in filled.knocked_out.values()), default=0) + 2
    keys = {entrant.id: filled.knocked_out.get(entrant.id, (top, 0, "")) for entrant in state.entrants}

    def order_key(entrant: EntrantId) -> tuple[int, int]:
        depth, place, _ = keys[entrant]
        return (-depth, -place)

    ordered = sorted(keys, key=lambda entrant: (order_key(entrant), seeds[entrant]))
    rows = []
    for entrant in ordered:
        place = 1 + sum(1 for other in ordered if order_key(other) < order_key(entrant))
        row = base[entrant]
        rows.append(
            Standing(
                place=place,
                entrant=entrant,
                seed=seeds[entrant],
                points=row.points,
                matches=row.matches,
                byes=row.byes,
                buchholz=row.buchholz,
                game_score=row.game_score,
                head_to_head=0.0,
                eliminated_in=keys[entrant][2] or None,
            )
        )
    return rows
