"""The games of a match: which deck each game uses and which entrant sits in which seat."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field

from lineit.engine import MAX_PLAYERS, MIN_PLAYERS, RULESETS, STANDARD, rounds_in_game

from .limits import Limits

MAX_GAMES = 100_000
SEED_BITS = 62  # a seed fits PostgreSQL's bigint, and 2**62 of them cannot be tried


def new_seed() -> int:
    """A match seed from the operating system's randomness. Every seed that nobody chose is
    drawn here: the decks are public functions of the seed (deck_seed) and a bot may import
    the engine, so a seed a bot could guess (0, a fixed validation seed) would be a known deck.
    The seed is printed and stored with the results, so the run can be repeated with it."""
    return secrets.randbits(SEED_BITS)


# Take, play and close are separate decisions; the final plays add at most three more.
DECISIONS_PER_ROUND = 3
FINAL_DECISIONS = 3


@dataclass(frozen=True)
class MatchSpec:
    """A match between ``num_players`` entrants (one per seat) over ``games`` games.

    With ``duplicate_deals`` each deck is played once per seat rotation (games come in groups
    of ``num_players``), so every entrant plays every seat of the same deal. With
    ``rotate_seats`` alone, each game has a new deck and entrants move one seat each game.

    ``seed`` deals the decks; left out, it is drawn from the operating system (new_seed).

    ``shard``, when given, is the part of the match that one run plays (a range of game
    indices): a parallel runner (botkit/parallel.py) gives each worker process a shard, and
    each game is the same game, with the same deck and seats, whichever run plays it.
    """

    num_players: int
    games: int
    ruleset: str = STANDARD
    seed: int = field(default_factory=new_seed)
    rotate_seats: bool = True
    duplicate_deals: bool = True
    shard: range | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, int) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise ValueError(f"a match has {MIN_PLAYERS} to {MAX_PLAYERS} seats, not {self.num_players!r}")
        if not isinstance(self.games, int) or not 1 <= self.games <= MAX_GAMES:
            raise ValueError(f"games must be from 1 to {MAX_GAMES}, not {self.games!r}")
        if self.ruleset not in RULESETS:
            raise ValueError(f"unknown ruleset {self.ruleset!r}; choose one of {', '.join(RULESETS)}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or not 0 <= self.seed < 2**63:
            raise ValueError(f"seed must be an integer from 0 to 2**63-1, not {self.seed!r}")
        shard = self.shard
        if shard is not None and (
            not isinstance(shard, range) or shard.step != 1 or not 0 <= shard.start < shard.stop <= self.games
        ):
            raise ValueError(f"a shard is a range of the match's games 0 to {self.games}, not {shard!r}")


@dataclass(frozen=True)
class GamePlan:
    index: int
    deal: int  # games sharing a deal share a deck (duplicate deals)
    deck_seed: int
    seats: tuple[int, ...]  # seats[s] = the entrant sitting in seat s
    lane: int = 0  # which of each entrant's bot processes plays it (see lane_of)


def lane_of(index: int, num_players: int, duplicate_deals: bool) -> int:
    """Which of an entrant's bot processes plays game ``index``: its rotation within its deal.

    The fair-play invariant (docs/bot-interface.md, "One deal, one process"): no bot process
    ever plays two games of the same deal. With duplicate deals a deal is played once per seat
    rotation, in consecutive games; each rotation has its own process (a lane), which plays
    that rotation of every deal and so never sees a deck twice: a bot that remembers the cards
    of a deal's first game learns nothing for its later rotations. Without duplicate deals
    every game has a deck of its own, and one process plays them all. A part of a match (a
    shard, a chunk) starts its own lanes: the lane depends on the game, not on who plays it."""
    return index % num_players if duplicate_deals else 0


def deck_seed(match_seed: int, deal: int) -> int:
    """A deck seed for each deal of a match, stable across machines and Python versions."""
    digest = hashlib.sha256(f"lineit-deal:{match_seed}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def game_plans(spec: MatchSpec) -> list[GamePlan]:
    n = spec.num_players
    plans = []
    for index in spec.shard if spec.shard is not None else range(spec.games):
        deal = index // n if spec.duplicate_deals else index
        rotation = index % n if (spec.rotate_seats or spec.duplicate_deals) else 0
        seats = tuple((seat - rotation) % n for seat in range(n))
        lane = lane_of(index, n, spec.duplicate_deals)
        plans.append(GamePlan(index, deal, deck_seed(spec.seed, deal), seats, lane))
    return plans


def most_decisions(num_players: int, games: int = 1) -> int:
    """The most decisions one entrant can be asked for over ``games`` games (an entrant sits in
    every game of its match)."""
    return games * (rounds_in_game(num_players) * DECISIONS_PER_ROUND + FINAL_DECISIONS)


def longest_seconds(num_players: int, games: int, limits: Limits) -> float:
    """The longest ``games`` games can last with every bot using all the time its limits give it:
    for each decision its allowance, and its bank once over the match, never more than the
    per-move cap; for each game its start_game and end_game; and a start of a process for the
    first game of each lane (one per seat rotation: lane_of) and after each failed game (a bot
    is stopped after ``max_failures``). A match, a task or a lease shorter than this would cut
    short a match no bot has lost yet."""
    decisions = most_decisions(num_players, games)
    thinking = min(decisions * limits.move_timeout_seconds, decisions * limits.move_seconds + limits.bank_seconds)
    calls = 2 * games + min(games, limits.max_failures + num_players)
    return num_players * (thinking + calls * limits.startup_seconds)
