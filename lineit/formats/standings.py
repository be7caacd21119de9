"""What the rounds played so far say: each entrant's record, who met whom, and the standings of
round robin and Swiss tournaments (the default of a format), with their tie-breaks.

Swiss, best first: match points (a bye is worth one win), then Buchholz (the sum, over one's
matches, of the opponents' points divided by the number of opponents at the table: with two
seats, the plain sum of the opponents' points; byes add nothing), then total game score (the
sum of one's mean score in each match), then head-to-head among the entrants still tied (the
points they took from each other's matches), then the seed.

Round robin: match points per match played (a bye is no match: everyone plays the same number
of matches with two seats; with tables the bye counts may differ by one), then game score per
match, then head-to-head, then the seed. Buchholz is shown but says little: everyone meets
everyone.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field

from .model import EntrantId, Standing, TournamentState
from .seating import SeatBook


@dataclass
class Record:
    """One entrant's tournament so far."""

    points: float = 0.0
    matches: int = 0
    byes: int = 0
    game_score: float = 0.0
    opponents: list[list[EntrantId]] = field(default_factory=list)  # per match


def records(state: TournamentState, bye_points: float) -> dict[EntrantId, Record]:
    table: dict[EntrantId, Record] = {entrant.id: Record() for entrant in state.entrants}
    for round_ in state.played_rounds():
        for pairing in round_.pairings:
            if pairing.bye:
                table[pairing.entrants[0]].byes += 1
                table[pairing.entrants[0]].points += bye_points
        for outcome in round_.outcomes or []:
            for result in outcome.results:
                record = table[result.entrant]
                record.points += result.points
                record.matches += 1
                record.game_score += result.mean_score
                record.opponents.append([e for e in outcome.entrants if e != result.entrant])
    return table


def head_to_head_points(state: TournamentState, group: set[EntrantId]) -> dict[EntrantId, float]:
    """Points each member of ``group`` took from the others in the matches where they met."""
    taken: dict[EntrantId, float] = defaultdict(float)
    for round_ in state.played_rounds():
        for outcome in round_.outcomes or []:
            present = [result for result in outcome.results if result.entrant in group]
            for mine, theirs in itertools.permutations(present, 2):
                taken[mine.entrant] += 1.0 if mine.place < theirs.place else 0.5 if mine.place == theirs.place else 0.0
    return taken


def history(state: TournamentState) -> tuple[dict[frozenset[EntrantId], int], dict[EntrantId, int], SeatBook]:
    """How often each pair has met, each entrant's byes, and everyone's seats so far."""
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


def standings(state: TournamentState, *, per_match: bool = False) -> list[Standing]:
    """The table as it stands after the rounds played so far, best first: as a Swiss ranks (a
    bye worth a win), or with ``per_match`` as a round robin ranks (see the module's notes)."""
    table = records(state, bye_points=0.0 if per_match else 1.0)
    seeds = state.seeds
    buchholz: dict[EntrantId, float] = {}
    for entrant, record in table.items():
        buchholz[entrant] = sum(
            sum(table[opponent].points for opponent in opponents) / len(opponents)
            for opponents in record.opponents
            if opponents
        )

    def leading_keys(entrant: EntrantId) -> tuple[float, ...]:
        record = table[entrant]
        if per_match:
            played = max(record.matches, 1)
            return (-round(record.points / played, 9), -round(record.game_score / played, 9))
        return (-round(record.points, 9), -round(buchholz[entrant], 9), -round(record.game_score, 9))

    ordered = sorted(table, key=lambda entrant: (leading_keys(entrant), seeds[entrant]))
    final: list[EntrantId] = []
    head_to_head: dict[EntrantId, float] = {}
    for _, tied in itertools.groupby(ordered, key=leading_keys):
        group = list(tied)
        taken = head_to_head_points(state, set(group)) if len(group) > 1 else {}
        for entrant in group:
            head_to_head[entrant] = taken.get(entrant, 0.0)
        final.extend(sorted(group, key=lambda entrant: (-head_to_head[entrant], seeds[entrant])))
    return [
        Standing(
            place=place,
            entrant=entrant,
            seed=seeds[entrant],
            points=table[entrant].points,
            matches=table[entrant].matches,
            byes=table[entrant].byes,
            buchholz=buchholz[entrant],
            game_score=table[entrant].game_score,
            head_to_head=head_to_head[entrant],
        )
        for place, entrant in enumerate(final, start=1)
    ]
