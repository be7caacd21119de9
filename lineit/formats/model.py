"""The data of a tournament format: entrants, options, pairings, match outcomes and standings.

Pure data, no Django: every class turns into plain JSON (``to_dict``) and back (``from_dict``),
so the Django app can keep a tournament's whole state in one JSON column.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from typing import Any

MIN_TABLE = 2
MAX_TABLE = 5
MAX_ENTRANTS = 1024

EntrantId = int


class FormatError(ValueError):
    """Options that make no tournament, or results that do not answer the pending pairings."""


@dataclass(frozen=True)
class Entrant:
    """One bot in the tournament. ``rating`` decides the seeding (higher is better; ``None`` last)."""

    id: EntrantId
    rating: float | None = None
    name: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "rating": self.rating, "name": self.name}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entrant:
        return cls(id=data["id"], rating=data.get("rating"), name=data.get("name", ""))


@dataclass(frozen=True)
class Options:
    """How the tournament is played.

    ``rounds``: Swiss only (default: enough rounds to separate a winner, ceil(log2 n) for two
    seats). ``cycles``: round robin only, how many times the whole schedule is played (a second
    cycle swaps the seats). ``advance``: elimination only, how many of each table go on
    (default: the top half, 1 with two seats). ``grand_final_reset``: double elimination only.
    ``games_per_pairing`` and ``duplicate_deals`` describe the match each pairing plays.
    """

    table_size: int = 2
    rounds: int | None = None
    cycles: int = 1
    advance: int | None = None
    grand_final_reset: bool = True
    games_per_pairing: int = 8
    duplicate_deals: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "table_size": self.table_size,
            "rounds": self.rounds,
            "cycles": self.cycles,
            "advance": self.advance,
            "grand_final_reset": self.grand_final_reset,
            "games_per_pairing": self.games_per_pairing,
            "duplicate_deals": self.duplicate_deals,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Options:
        return cls(**data)


@dataclass(frozen=True)
class Option:
    """A field of ``Options`` that only some formats read (each format names those it reads), and
    what its value must be: a whole number or true/false; with ``default_none`` also None, the
    format's default. ``field_bound``: the values allowed depend on the number of entrants, so
    they are checked once the field is known."""

    name: str
    kind: type[int] | type[bool]
    default_none: bool = False
    field_bound: bool = False

    def check(self, value: object) -> None:
        """Raise FormatError unless ``value`` (as a JSON object gives it) is of the option's type."""
        if value is None and self.default_none:
            return
        if self.kind is bool and not isinstance(value, bool):
            raise FormatError(f"{self.name} must be true or false, not {value!r}")
        if self.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise FormatError(f"{self.name} must be a whole number, not {value!r}")


ROUNDS = Option("rounds", int, default_none=True, field_bound=True)
CYCLES = Option("cycles", int)
ADVANCE = Option("advance", int, default_none=True)
GRAND_FINAL_RESET = Option("grand_final_reset", bool)
FORMAT_OPTIONS = (ROUNDS, CYCLES, ADVANCE, GRAND_FINAL_RESET)  # every option some format may read


def for_any_field(options: Options) -> Options:
    """``options`` with those whose values depend on the field size left to the format's default:
    what can be checked before the entrants are known (open sign-up)."""
    unset: dict[str, Any] = {option.name: None for option in FORMAT_OPTIONS if option.field_bound}
    return dataclasses.replace(options, **unset)


@dataclass(frozen=True)
class Pairing:
    """One match of a round: ``entrants`` in seat order, or a single entrant with ``bye``.

    ``slot`` names the bracket match it plays (``W1-3``, ``L2-1``, ``GF``, ``GF2``) in
    elimination formats. ``match_seed`` is the seed of the match's decks.
    """

    round: int
    table: int
    entrants: tuple[EntrantId, ...]
    bye: bool = False
    slot: str | None = None
    match_seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "table": self.table,
            "entrants": list(self.entrants),
            "bye": self.bye,
            "slot": self.slot,
            "match_seed": self.match_seed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Pairing:
        return cls(
            round=data["round"],
            table=data["table"],
            entrants=tuple(data["entrants"]),
            bye=data.get("bye", False),
            slot=data.get("slot"),
            match_seed=data.get("match_seed", 0),
        )


@dataclass(frozen=True)
class EntrantResult:
    """How one entrant did in one match. ``place`` is 1 for the best; tied entrants share it.

    ``points``: one per opponent placed below, one half per opponent tied, divided by the
    number of opponents: 1 a win, 1/2 a draw, 0 a loss with two seats.
    """

    entrant: EntrantId
    place: int
    points: float
    mean_rank: float
    mean_score: float
    games: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "entrant": self.entrant,
            "place": self.place,
            "points": self.points,
            "mean_rank": self.mean_rank,
            "mean_score": self.mean_score,
            "games": self.games,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EntrantResult:
        return cls(**data)


@dataclass(frozen=True)
class MatchOutcome:
    """The result of one pairing's match: one row per entrant, best place first."""

    round: int
    table: int
    results: tuple[EntrantResult, ...]

    def result_of(self, entrant: EntrantId) -> EntrantResult:
        for result in self.results:
            if result.entrant == entrant:
                return result
        raise KeyError(entrant)

    @property
    def entrants(self) -> tuple[EntrantId, ...]:
        return tuple(result.entrant for result in self.results)

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "table": self.table, "results": [r.to_dict() for r in self.results]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchOutcome:
        return cls(
            round=data["round"],
            table=data["table"],
            results=tuple(EntrantResult.from_dict(r) for r in data["results"]),
        )


@dataclass(frozen=True)
class Standing:
    """One row of the standings. ``place`` is unique in round robin and Swiss (the last
    tie-break is the seed); in elimination entrants knocked out at the same stage share it."""

    place: int
    entrant: EntrantId
    seed: int
    points: float
    matches: int
    byes: int
    buchholz: float
    game_score: float
    head_to_head: float
    eliminated_in: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "place": self.place,
            "entrant": self.entrant,
            "seed": self.seed,
            "points": self.points,
            "matches": self.matches,
            "byes": self.byes,
            "buchholz": self.buchholz,
            "game_score": self.game_score,
            "head_to_head": self.head_to_head,
            "eliminated_in": self.eliminated_in,
        }


@dataclass
class Round:
    """The pairings of one round and, once played, their outcomes (byes have none)."""

    number: int
    pairings: list[Pairing]
    outcomes: list[MatchOutcome] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "pairings": [p.to_dict() for p in self.pairings],
            "outcomes": None if self.outcomes is None else [o.to_dict() for o in self.outcomes],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Round:
        outcomes = data.get("outcomes")
        return cls(
            number=data["number"],
            pairings=[Pairing.from_dict(p) for p in data["pairings"]],
            outcomes=None if outcomes is None else [MatchOutcome.from_dict(o) for o in outcomes],
        )


@dataclass
class TournamentState:
    """Everything a tournament is: its inputs and its history. Every other fact (standings, the
    bracket, the next round) is recomputed from it, so the JSON form is the whole truth.

    ``entrants`` are in seed order (seed 1 first).
    """

    format: str
    options: Options
    entrants: list[Entrant]
    seed: int
    rounds: list[Round] = field(default_factory=list)

    @property
    def seeds(self) -> dict[EntrantId, int]:
        return {entrant.id: number for number, entrant in enumerate(self.entrants, start=1)}

    @property
    def pending(self) -> Round | None:
        """The round waiting for results, if any."""
        if self.rounds and self.rounds[-1].outcomes is None:
            return self.rounds[-1]
        return None

    def played_rounds(self) -> list[Round]:
        return [round_ for round_ in self.rounds if round_.outcomes is not None]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "options": self.options.to_dict(),
            "entrants": [e.to_dict() for e in self.entrants],
            "seed": self.seed,
            "rounds": [r.to_dict() for r in self.rounds],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentState:
        return cls(
            format=data["format"],
            options=Options.from_dict(data["options"]),
            entrants=[Entrant.from_dict(e) for e in data["entrants"]],
            seed=data["seed"],
            rounds=[Round.from_dict(r) for r in data["rounds"]],
        )


def derived_seed(tournament_seed: int, *parts: object) -> int:
    """A seed for one match (or one random choice), stable across machines and Python versions."""
    text = ":".join(["lineit-tournament", str(tournament_seed), *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1
