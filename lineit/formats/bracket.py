"""Elimination brackets: their shape (which match feeds which) and their state from results.

Single elimination, tables of k (2 to 5), the top ``a`` of each table going on (1 <= a <= k/2):

* Shape, built back from the final: the final seats a*floor(k/a) (k with two seats); a round
  with S seats is fed by S/a tables of the round before, which seat a*floor(k*T/a) in tables
  whose sizes differ by at most one. Rounds are added until the first round seats everyone.
  A field of at most k entrants plays one table, the final.
* Byes (only in the first round): the E empty seats are taken away one at a time from tables
  1, 2, 3, ... in turn (table 1 holds seed 1), never leaving a table fewer than ``a`` entrants:
  a table left with ``a`` or fewer goes on without playing. With two seats that is the usual
  rule: byes go to the top seeds, and a bye never meets a bye.
* Seeding: entrants by seed go into the tables in snake order (row 1 left to right, row 2
  right to left, ...), skipping full tables. With two seats and 16 entrants table 1 is 1 v 16,
  table 8 is 8 v 9.
* Who meets whom next (fixed in advance): the first places of tables 1..T, then the second
  places of tables T..1, and so on, are dealt to the next round's tables in the same snake
  order. With two seats this gives the standard bracket: 1 v 16 and 8 v 9 feed one match,
  4 v 13 and 5 v 12 the next (the display order, ``tree_order``).

Double elimination at two seats (tables of 3 to 5: double_tables.py): the winners bracket above
(W rounds). Losers of winners round 1 pair off in losers round 1 (neighbours in the display
order); losers round 2j takes the winners
of losers round 2j-1 against the losers of winners round j+1, dropped in reversed order when
j+1 is even and in order when odd, so that those who met recently meet late; odd losers rounds
halve the field. The losers' champion meets the winners' champion in the grand final (GF);
with ``grand_final_reset``, if the losers' champion wins, a second final (GF2) decides. An
empty seat propagates: a match with one entrant goes on without playing, one with none passes
an empty seat on (only after first-round byes).

Ties within a match: the better seed takes the better place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .model import EntrantId, FormatError

WINNERS = "winners"
LOSERS = "losers"
FINAL = "final"

# The kinds of bracket (``Bracket.kind``, "kind" in the JSON).
SINGLE_KIND = "single"
DOUBLE_KIND = "double"

Destination = tuple[str, int]  # (match id, slot index)


@dataclass(frozen=True)
class Source:
    """Where a slot's entrant comes from: a seed (first round) or a place in an earlier match."""

    seed: int = 0
    match: str = ""
    place: int = 0

    def describe(self) -> str:
        return f"seed {self.seed}" if self.seed else f"{self.match} #{self.place}"


@dataclass
class BracketMatch:
    id: str
    section: str
    round: int
    sources: list[Source]
    destinations: dict[int, Destination | None] = field(default_factory=dict)  # place -> next slot
    goes_on: int = 1  # with this many entrants or fewer the match is not played: all go on
    depth: int = 0  # for the standings: knocked out deeper in the bracket places higher


@dataclass
class Bracket:
    kind: str
    table_size: int
    advance: int
    entrants: int
    matches: dict[str, BracketMatch]
    grand_final_reset: bool = False

    def round_ids(self, section: str) -> list[list[str]]:
        rounds: dict[int, list[str]] = {}
        for match in self.matches.values():
            if match.section == section:
                rounds.setdefault(match.round, []).append(match.id)
        return [rounds[number] for number in sorted(rounds)]


def seat_counts(entrants: int, table_size: int, advance: int) -> list[list[int]]:
    """Table sizes of each round, first round first, before any bye."""
    if entrants <= table_size:
        return [[entrants]]
    rounds = [[advance * (table_size // advance)]]
    while sum(rounds[0]) < entrants:
        tables = sum(rounds[0]) // advance
        seats = advance * (table_size * tables // advance)
        rounds.insert(0, [seats // tables + (1 if index < seats % tables else 0) for index in range(tables)])
    return rounds


def snake(count: int, capacities: Sequence[int]) -> list[list[int]]:
    """Deal items 0..count-1 to tables in snake order, skipping full tables."""
    tables: list[list[int]] = [[] for _ in capacities]
    dealt = 0
    row = 0
    while dealt < count:
        order = range(len(capacities)) if row % 2 == 0 else range(len(capacities) - 1, -1, -1)
        for table in order:
            if dealt < count and len(tables[table]) < capacities[table]:
                tables[table].append(dealt)
                dealt += 1
        row += 1
    return tables


def first_round_capacities(sizes: Sequence[int], entrants: int, advance: int) -> list[int]:
    """Seats left at each first-round table once the byes are taken away (see the notes)."""
    capacities = list(sizes)
    empty = sum(sizes) - entrants
    table = 0
    while empty:
        if capacities[table] > advance:
            capacities[table] -= 1
            empty -= 1
        table = (table + 1) % len(capacities)
    return capacities


def build_single(entrants: int, table_size: int, advance: int, prefix: str = "W") -> Bracket:
    rounds = seat_counts(entrants, table_size, advance)
    final_round = len(rounds)
    matches: dict[str, BracketMatch] = {}
    capacities = first_round_capacities(rounds[0], entrants, advance)
    for table, seeds in enumerate(snake(entrants, capacities), start=1):
        match_id = f"{prefix}1-{table}"
        matches[match_id] = BracketMatch(match_id, WINNERS, 1, [Source(seed=seed + 1) for seed in seeds], depth=1)
    for number in range(1, final_round):
        previous = [matches[f"{prefix}{number}-{table}"] for table in range(1, len(rounds[number - 1]) + 1)]
        feeders: list[tuple[str, int]] = []
        for place in range(1, advance + 1):
            ordered = previous if place % 2 == 1 else previous[::-1]
            feeders.extend((match.id, place) for match in ordered)
        for table, dealt in enumerate(snake(len(feeders), rounds[number]), start=1):
            match_id = f"{prefix}{number + 1}-{table}"
            sources = [Source(match=feeders[index][0], place=feeders[index][1]) for index in dealt]
            matches[match_id] = BracketMatch(match_id, WINNERS, number + 1, sources, depth=number + 1)
            for slot, source in enumerate(sources):
                matches[source.match].destinations[source.place] = (match_id, slot)
    for match in matches.values():
        match.goes_on = 1 if match.round == final_round else advance
        for place in range(1, len(match.sources) + 1):
            match.destinations.setdefault(place, None)
    matches[f"{prefix}{final_round}-1"].section = FINAL if prefix == "W" else WINNERS
    return Bracket(SINGLE_KIND, table_size, advance, entrants, matches)


def tree_order(bracket: Bracket, round_number: int) -> list[str]:
    """The winners-bracket matches of a round in display order: those feeding one later match
    side by side (1 v 16, 8 v 9, 4 v 13, 5 v 12, ...)."""
    winners = [m for m in bracket.matches.values() if m.id.startswith("W")]
    ids = [m.id for m in winners if m.round == round_number]
    if round_number == max(m.round for m in winners):
        return ids
    order: list[str] = []
    for later in tree_order(bracket, round_number + 1):
        for source in bracket.matches[later].sources:
            if source.match in ids and source.match not in order:
                order.append(source.match)
    return order + [match_id for match_id in ids if match_id not in order]


def build_double(entrants: int, grand_final_reset: bool) -> Bracket:
    bracket = build_single(entrants, 2, 1, prefix="W")
    matches = bracket.matches
    for match in matches.values():
        match.section = WINNERS
    winner_rounds = max(match.round for match in matches.values())
    orders = {number: tree_order(bracket, number) for number in range(1, winner_rounds + 1)}
    loser_rounds = 2 * (winner_rounds - 1)

    def add(match_id: str, section: str, number: int, sources: list[Source], depth: int) -> None:
        matches[match_id] = BracketMatch(match_id, section, number, sources, depth=depth)
        for slot, source in enumerate(sources):
            matches[source.match].destinations[source.place] = (match_id, slot)

    previous: list[str] = []
    for number in range(1, loser_rounds + 1):
        current: list[str] = []
        if number == 1:
            feeders = [Source(match=m, place=2) for m in orders[1]]
            groups = [feeders[index : index + 2] for index in range(0, len(feeders), 2)]
        elif number % 2 == 0:
            dropping = orders[number // 2 + 1]
            dropping = dropping[::-1] if (number // 2 + 1) % 2 == 0 else dropping
            groups = [[Source(match=up, place=1), Source(match=down, place=2)] for up, down in zip(previous, dropping)]
        else:
            groups = [
                [Source(match=previous[i], place=1), Source(match=previous[i + 1], place=1)]
                for i in range(0, len(previous), 2)
            ]
        for table, sources in enumerate(groups, start=1):
            match_id = f"L{number}-{table}"
            add(match_id, LOSERS, number, sources, depth=number)
            matches[match_id].destinations[2] = None
            current.append(match_id)
        previous = current
    winners_final = orders[winner_rounds][0]
    losers_champion = Source(match=previous[0], place=1) if previous else Source(match=winners_final, place=2)
    add("GF", FINAL, 1, [Source(match=winners_final, place=1), losers_champion], depth=loser_rounds + 1)
    matches["GF"].destinations = {1: None, 2: None}
    if grand_final_reset:
        matches["GF2"] = BracketMatch("GF2", FINAL, 2, [Source(match="GF", place=1), Source(match="GF", place=2)],
                                      destinations={1: None, 2: None}, depth=loser_rounds + 1)  # fmt: skip
    return Bracket(DOUBLE_KIND, 2, 1, entrants, matches, grand_final_reset)


# --- state: the bracket filled in with results ---------------------------------------------------

EMPTY = None  # an empty seat (a bye)


@dataclass
class MatchState:
    status: str  # waiting, ready, played, bye, empty, skipped
    entrants: list[EntrantId | None]  # per slot once known, None = empty
    order: list[EntrantId] = field(default_factory=list)  # best first, once decided


@dataclass
class BracketState:
    bracket: Bracket
    matches: dict[str, MatchState]
    knocked_out: dict[EntrantId, tuple[int, int, str]]  # entrant -> (depth, -place, match id)
    champion: EntrantId | None

    @property
    def finished(self) -> bool:
        return self.champion is not None

    def ready(self) -> list[str]:
        return [match_id for match_id, state in self.matches.items() if state.status == "ready"]


def resolve(bracket: Bracket, seeded: Sequence[EntrantId], played: Mapping[str, Sequence[EntrantId]]) -> BracketState:
    """Fill the bracket in: ``seeded`` is the entrants by seed, ``played`` each played match's
    entrants best first (ties already broken)."""
    slots: dict[tuple[str, int], EntrantId | None] = {}
    states: dict[str, MatchState] = {}
    knocked_out: dict[EntrantId, tuple[int, int, str]] = {}
    champion: EntrantId | None = None
    for match in bracket.matches.values():
        known: list[EntrantId | None] = []
        if match.id == "GF2":  # the upper finalists and the grand final's winner, in their seats
            final = states["GF"]
            if not final.order:
                states[match.id] = MatchState("waiting", [])
                continue
            upper = final.entrants[: bracket.advance]
            if final.order[0] in upper:
                states[match.id] = MatchState("skipped", list(final.entrants))
                continue
            known = [*upper, final.order[0]]
        for slot, source in enumerate(match.sources if match.id != "GF2" else []):
            if source.seed:
                known.append(seeded[source.seed - 1] if source.seed <= len(seeded) else EMPTY)
            elif (match.id, slot) in slots:
                known.append(slots[(match.id, slot)])
            else:
                break
        if len(known) < len(match.sources):
            states[match.id] = MatchState("waiting", known)
            continue
        present = [entrant for entrant in known if entrant is not EMPTY]
        if len(present) <= match.goes_on and match.section != FINAL:
            order, status = present, "bye" if present else "empty"
        elif match.id in played:
            order, status = list(played[match.id]), "played"
            if sorted(order) != sorted(present):
                raise FormatError(f"the result of {match.id} names {order}, but {present} play it")
        else:
            states[match.id] = MatchState("ready", known)
            continue
        states[match.id] = MatchState(status, known, order)
        for place in sorted(set(range(1, len(match.sources) + 1)) | set(match.destinations)):
            entrant = order[place - 1] if place <= len(order) else EMPTY
            destination = match.destinations.get(place)
            if destination is not None:
                slots[destination] = entrant
            elif entrant is not EMPTY and match.id != "GF":
                knocked_out[entrant] = (match.depth, -place, match.id)
        if match.id == "GF" and order:
            # Seats 1..advance came from the upper bracket. A reset is due when the winner did not.
            upper = known[: bracket.advance]
            reset_due = bracket.grand_final_reset and order[0] not in upper
            if not reset_due:
                champion = order[0]
            for place, entrant in enumerate(order[1:], start=2):
                if not reset_due or entrant not in upper:
                    knocked_out[entrant] = (match.depth, -place, match.id)
        elif (match.id == "GF2" and order) or (match.section == FINAL and bracket.kind != DOUBLE_KIND and order):
            champion = order[0]
    if champion is not None:
        knocked_out[champion] = (max(m.depth for m in bracket.matches.values()) + 1, 0, "")
    return BracketState(bracket, states, knocked_out, champion)


def to_json(state: BracketState, names: Mapping[EntrantId, str] | None = None) -> dict[str, Any]:
    """The bracket for the API and the pages: every match, its sources, entrants and results."""
    bracket = state.bracket
    matches = []
    for match in bracket.matches.values():
        current = state.matches[match.id]
        matches.append(
            {
                "id": match.id,
                "section": match.section,
                "round": match.round,
                "status": current.status,
                "slots": [
                    {
                        "from": source.describe(),
                        "entrant": current.entrants[slot] if slot < len(current.entrants) else None,
                        "known": slot < len(current.entrants),
                    }
                    for slot, source in enumerate(match.sources)
                ],
                "destinations": {
                    str(place): (f"{destination[0]} slot {destination[1] + 1}" if destination else "out")
                    for place, destination in sorted(match.destinations.items())
                },
                "result": current.order,
            }
        )
    return {
        "kind": bracket.kind,
        "table_size": bracket.table_size,
        "advance": bracket.advance,
        "grand_final_reset": bracket.grand_final_reset,
        "champion": state.champion,
        "names": {str(key): value for key, value in (names or {}).items()},
        "matches": matches,
    }
