"""A tournament's life in functions: start it, feed it results round by round, read the table.

    state = first_round(SWISS, entrants, Options(table_size=2, rounds=5), seed=7)
    while not is_finished(state):
        outcomes = [play(pairing) for pairing in state.pending.pairings if not pairing.bye]
        state = next_round(state, outcomes)
    final_standings(state)

Everything is a pure function of the state, which is plain data (``TournamentState.to_dict``):
the same entrants, options, seed and results always give the same pairings. What differs from
one format to another is asked of the state's format in the registry (registry.py): these
functions name no format.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from . import bracket as brackets
from .model import (
    MAX_ENTRANTS,
    MAX_TABLE,
    MIN_TABLE,
    Entrant,
    FormatError,
    MatchOutcome,
    Options,
    Pairing,
    Round,
    Standing,
    TournamentState,
    derived_seed,
)
from .registry import Table, TournamentFormat, get_format


def seed_order(entrants: Sequence[Entrant], seed: int) -> list[Entrant]:
    """Seeds: by rating, highest first (no rating last); equal ratings in an order drawn from the
    tournament seed, so that no list order favours anyone."""
    rng = random.Random(derived_seed(seed, "seeding"))
    draw = {entrant.id: rng.random() for entrant in entrants}
    return sorted(
        entrants,
        key=lambda e: (e.rating is None, -(e.rating or 0.0), draw[e.id]),
    )


def validate(format: TournamentFormat, entrants: Sequence[Entrant], options: Options) -> None:
    """The checks every format shares, then the format's own."""
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
    format.check(len(ids), options)


def first_round(
    format: str, entrants: Sequence[Entrant], options: Options | None = None, seed: int = 0
) -> TournamentState:
    """A new tournament with its first round paired."""
    options = options or Options()
    kind = get_format(format)
    validate(kind, entrants, options)
    options = kind.prepare(len(entrants), options)
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
    return get_format(state.format).standings(state)


def final_standings(state: TournamentState) -> list[Standing]:
    if not is_finished(state):
        raise FormatError("the tournament is not over yet")
    return standings(state)


def planned_rounds(state: TournamentState) -> int | None:
    """Rounds in all when known in advance (round robin, Swiss); None for elimination."""
    return get_format(state.format).planned_rounds(state)


def bracket_state(state: TournamentState) -> brackets.BracketState | None:
    """The bracket filled in with the results so far; None for a format without one."""
    return get_format(state.format).bracket(state)


def bracket_json(state: TournamentState) -> dict[str, Any] | None:
    """The bracket with results so far (elimination only), for the API and pages."""
    filled = bracket_state(state)
    if filled is None:
        return None
    names = {entrant.id: entrant.name for entrant in state.entrants}
    return brackets.to_json(filled, names)


def _with_next_round(state: TournamentState) -> TournamentState:
    number = len(state.rounds) + 1
    tables = get_format(state.format).pair(state)
    if tables is not None:
        state.rounds.append(Round(number=number, pairings=_pairings(state, number, tables)))
    return state


def _pairings(state: TournamentState, number: int, tables: list[Table]) -> list[Pairing]:
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
