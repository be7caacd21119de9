"""What single and double elimination share: a bracket fixed in advance (bracket.py) is played
match by match, each as soon as its entrants are known, and the standings follow how far each
entrant came. Each of the two formats (single.py, double.py) gives the bracket's shape.

Standings: the champion first, then by how far each entrant came (knocked out later = higher;
at the same stage, a better place in that match = higher; the rest share the place).
"""

from __future__ import annotations

import abc

from .bracket import Bracket, BracketState, resolve
from .model import ADVANCE, EntrantId, FormatError, Option, Options, Standing, TournamentState
from .registry import Table, TournamentFormat
from .standings import history, standings


def advance_of(options: Options) -> int:
    """How many of each table go on (default: the top half)."""
    return options.advance if options.advance is not None else options.table_size // 2


class Elimination(TournamentFormat):
    """A format played along a bracket; subclasses give its ``shape``."""

    options: tuple[Option, ...] = (ADVANCE,)
    has_bracket = True

    @abc.abstractmethod
    def shape(self, entrants: int, options: Options) -> Bracket:
        """The bracket of a field of ``entrants`` (the same for the same arguments: cache it)."""

    def check(self, entrants: int, options: Options) -> None:
        size, advance = options.table_size, advance_of(options)
        if not 1 <= advance <= size // 2:
            raise FormatError(f"at tables of {size}, 1 to {size // 2} of each table can go on, not {advance}")

    def bracket(self, state: TournamentState) -> BracketState:
        seeds = state.seeds
        played: dict[str, list[EntrantId]] = {}
        for round_ in state.played_rounds():
            slots = {(p.round, p.table): p.slot for p in round_.pairings}
            for outcome in round_.outcomes or []:
                slot = slots[(outcome.round, outcome.table)]
                ranked = sorted(outcome.results, key=lambda r: (r.place, seeds[r.entrant]))
                played[slot or ""] = [result.entrant for result in ranked]
        shape = self.shape(len(state.entrants), state.options)
        return resolve(shape, [entrant.id for entrant in state.entrants], played)

    def pair(self, state: TournamentState) -> list[Table] | None:
        filled = self.bracket(state)
        ready = filled.ready()
        if not ready:
            if filled.champion is None:
                raise RuntimeError("an elimination bracket with no match to play and no champion")
            return None
        _, _, book = history(state)
        tables: list[Table] = []
        for match_id in ready:
            present = tuple(e for e in filled.matches[match_id].entrants if e is not None)
            tables.append((book.seat(present), match_id))
        return tables

    def standings(self, state: TournamentState) -> list[Standing]:
        filled = self.bracket(state)
        base = {row.entrant: row for row in standings(state)}
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
