"""The data a bot receives, as typed structures: the observation, and what ``start_game`` and
``end_game`` are given (docs/bot-interface.md).

They are ``TypedDict`` classes: a bot still receives plain dicts (JSON data: dicts, lists,
strings, integers, booleans, ``None``), and these names only tell a type checker (mypy, pyright,
an editor) which keys each one holds and what their values are. Import them in a bot, in the
sandbox as on your machine::

    from lineit.botkit.types import GameInfo, Observation

    class Bot:
        def start_game(self, info: GameInfo) -> None: ...
        def act(self, observation: Observation) -> str: ...

Every key is always present (``None`` where the table says "or None"). The engine's
observations are checked against these declarations, key by key and type by type, over random
games of every table size, ruleset and phase (tests/botkit/test_observation_types.py), so the
two cannot drift apart. Lists are lists, never tuples: a ``[seat, action]`` pair of
``recent_actions`` is a two-item list.

This module imports ``typing``: 17 ms more start-up for a bot that imports nothing else, none
for one that imports ``lineit.engine``, which loads it anyway (benchmarks/types_import.py). The
bot host does not import this module, only a bot that does (a bot that wants no cost at all
imports it under ``if TYPE_CHECKING:``).
"""

from __future__ import annotations

from typing import Literal, TypedDict

Ruleset = Literal["standard", "bga"]
"""``"standard"`` (take, then play or pass, then close or pass) or ``"bga"`` (Board Game Arena's
free order: take, play and close at most once each, in any order, then pass)."""

Phase = Literal["take", "play", "close", "turn", "final", "over"]
"""The decision the current player faces: a standard turn's ``"take"``, ``"play"`` and
``"close"`` steps, a bga ``"turn"``, the ``"final"`` plays at the end of the game, or ``"over"``."""

Direction = Literal["up", "down"]
"""Which way a line runs once it holds two number cards."""


class PlayerView(TypedDict):
    """One seat's public state: an entry of ``Observation["players"]``, seat 0 first. Everything
    here is public (every hand card came from the face-up market)."""

    line: list[int]
    """The cards of the seat's current line, in the order placed: number cards (1 to 100) and at
    most one bet card (101 to 106)."""
    direction: Direction | None
    """``"up"`` or ``"down"``; ``None`` while the line holds fewer than two number cards."""
    bet: int | None
    """The bet card in the line (101 to 106, of values 3, 3, 4, 4, 5, 5), or ``None``."""
    after_bet: int
    """How many number cards were placed after the bet card (a bet of X wins with at least X)."""
    colour_counts: list[int]
    """Number cards of each colour in the line: four counts, red, blue, green, yellow. The third
    card of a colour wins that colour's jackpot."""
    hand: list[int]
    """The cards in the seat's hand (at most two)."""
    score_pile: int
    """How many cards the seat's score pile holds (one point each)."""
    tokens: list[int]
    """The bet tokens won (positive) and lost (negative), in the order settled, e.g. ``[4, -3]``."""
    score: int
    """The score so far: ``score_pile + sum(tokens)``."""


class TurnState(TypedDict):
    """What the current bga turn has done (``Observation["turn"]``, bga only)."""

    took: bool
    """A market card was taken this turn (compulsory before ``pass`` may end the turn)."""
    played: bool
    """A hand card was played this turn."""
    closed: bool
    """The line was closed this turn."""


FinalState = TypedDict("FinalState", {"pass": Literal[1, 2], "passed": list[bool]})
FinalState.__doc__ = """Where the final plays stand (``Observation["final"]``, during the final plays only).

``pass``: which of the two passes round the table this is, 1 or 2.
``passed``: one boolean per seat, seat 0 first: that seat passed, and plays no more.

(A ``TypedDict`` made by a call, since ``pass`` is a Python keyword: read it as ``final["pass"]``.)
"""


class Observation(TypedDict):
    """What a bot is given at each decision (``act(observation)``): the public picture of the
    table, the same for every seat but for ``seat``, ``recent_actions`` and ``legal_actions``.
    Only the order of the draw pile is hidden. Treat it as read-only."""

    seat: int
    """The seat this observation is for: yours, 0 to ``num_players - 1``."""
    num_players: int
    """How many seats the game has, 2 to 5."""
    ruleset: Ruleset
    """``"standard"`` or ``"bga"``."""
    rules_version: str
    """The engine's ``RULES_VERSION``, e.g. ``"1.0"``."""
    round: int
    """The current round, from 1."""
    rounds: int
    """Rounds in this game: 26 with 2 players, 21 with 3, 17 with 4, 15 with 5."""
    first_player: int
    """The seat that plays first this round (it moves one seat every round)."""
    current_player: int
    """The seat to decide now (yours when you are asked to act); -1 once the game is over."""
    phase: Phase
    """The decision being made: ``"take"``, ``"play"``, ``"close"``, ``"turn"``, ``"final"`` or
    ``"over"``."""
    turn: TurnState | None
    """bga only: what this turn has done so far; ``None`` in the standard ruleset and outside a
    bga turn."""
    final: FinalState | None
    """During the final plays: which pass round the table, and who passed; otherwise ``None``."""
    market: list[int]
    """The face-up cards left to take this round."""
    jackpots: list[list[int]]
    """Four lists, the cards under each colour's jackpot: red, blue, green, yellow."""
    players: list[PlayerView]
    """One entry per seat, seat 0 first."""
    unseen: list[int]
    """The cards still in the draw pile, sorted by number (their order is the hidden part)."""
    draw_count: int
    """How many cards the draw pile holds: ``len(unseen)``."""
    recent_actions: list[list[int | str]]
    """The ``[seat, action]`` pairs (an int, then a str) taken since your previous decision,
    oldest first; at your first decision, every action before it. Keep them to have the whole
    history."""
    legal_actions: list[str]
    """The actions you may return now (at least one when you are asked to act); empty when it is
    not your turn."""


class MatchLimits(TypedDict):
    """The limits of the match (``GameInfo["limits"]``; docs/bot-interface.md, "Time and memory
    limits")."""

    move_seconds: float
    """Each decision may take this long for free."""
    bank_seconds: float
    """Time beyond the allowance is drawn from this bank, one for the whole match."""
    move_timeout_seconds: float
    """No single decision may take longer, whatever is left in the bank."""
    startup_seconds: float
    """Loading the bot, and each ``start_game`` and ``end_game`` call, may take this long."""
    memory_mb: int
    """The memory the bot's whole process may use, in MB."""
    max_failures: int
    """Failed games after which the bot is stopped for the rest of the match."""


class GameInfo(TypedDict):
    """What ``start_game(info)`` is given before each game."""

    seat: int
    """Your seat in this game, 0 to ``num_players - 1`` (seats rotate between games)."""
    num_players: int
    """How many seats the game has, 2 to 5."""
    ruleset: Ruleset
    """``"standard"`` or ``"bga"``."""
    rules_version: str
    """The engine's ``RULES_VERSION``, e.g. ``"1.0"``."""
    game: int
    """The index of this game in the match, from 0."""
    games: int
    """How many games the match has."""
    players: list[str]
    """The bots' names, one per seat, seat 0 first."""
    limits: MatchLimits
    """The limits of the match."""


class GameResult(TypedDict):
    """What ``end_game(result)`` is given after a game the bot did not fail in."""

    seat: int
    """Your seat in the game that ended."""
    game: int
    """The index of that game in the match, from 0."""
    scores: list[int]
    """The final score of each seat, seat 0 first."""
    ranks: list[int]
    """The rank of each seat, seat 0 first: 1 is the best, ties share a rank, forfeited seats
    rank last."""


__all__ = [
    "Direction",
    "FinalState",
    "GameInfo",
    "GameResult",
    "MatchLimits",
    "Observation",
    "Phase",
    "PlayerView",
    "Ruleset",
    "TurnState",
]
