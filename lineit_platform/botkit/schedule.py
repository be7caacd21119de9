"""The games of a match: which deck each game uses and which entrant sits in which seat."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from lineit_platform.engine import MAX_PLAYERS, MIN_PLAYERS, RULESETS, STANDARD

MAX_GAMES = 100_000


@dataclass(frozen=True)
class MatchSpec:
    """A match between ``num_players`` entrants (one per seat) over ``games`` games.

    With ``duplicate_deals`` each deck is played once per seat rotation (games come in groups
    of ``num_players``), so every entrant plays every seat of the same deal. With
    ``rotate_seats`` alone, each game has a new deck and entrants move one seat each game.
    """

    num_players: int
    games: int
    ruleset: str = STANDARD
    seed: int = 0
    rotate_seats: bool = True
    duplicate_deals: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, int) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise ValueError(f"a match has {MIN_PLAYERS} to {MAX_PLAYERS} seats, not {self.num_players!r}")
        if not isinstance(self.games, int) or not 1 <= self.games <= MAX_GAMES:
            raise ValueError(f"games must be from 1 to {MAX_GAMES}, not {self.games!r}")
        if self.ruleset not in RULESETS:
            raise ValueError(f"unknown ruleset {self.ruleset!r}; choose one of {', '.join(RULESETS)}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or not 0 <= self.seed < 2**63:
            raise ValueError(f"seed must be an integer from 0 to 2**63-1, not {self.seed!r}")


@dataclass(frozen=True)
class GamePlan:
    index: int
    deal: int  # games sharing a deal share a deck (duplicate deals)
    deck_seed: int
    seats: tuple[int, ...]  # seats[s] = the entrant sitting in seat s


def deck_seed(match_seed: int, deal: int) -> int:
    """A deck seed for each deal of a match, stable across machines and Python versions."""
    digest = hashlib.sha256(f"lineit-deal:{match_seed}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def game_plans(spec: MatchSpec) -> list[GamePlan]:
    n = spec.num_players
    plans = []
    for index in range(spec.games):
        deal = index // n if spec.duplicate_deals else index
        rotation = index % n if (spec.rotate_seats or spec.duplicate_deals) else 0
        seats = tuple((seat - rotation) % n for seat in range(n))
        plans.append(GamePlan(index, deal, deck_seed(spec.seed, deal), seats))
    return plans
