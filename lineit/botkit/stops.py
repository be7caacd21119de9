"""Which games of a match, played in parts, are the games one process would have played.

Only one thing carries from game to game of a match: a bot that failed ``max_failures`` games is
stopped for the rest of it (referee.py). A part of a match played on its own (a shard of
``--jobs``, a chunk on the platform) counts its failures from its own first game, so it may
play a bot that one process would have stopped by then. ``StopTracker`` takes the games in
order and says where they stop agreeing: the caller keeps the games before, and plays the rest
again with the entrants that are due to be stopped stopped from the start (their games
forfeited as ``stopped``, as one process would have).
"""

from __future__ import annotations

from .failures import STOPPED
from .referee import GameRecord


def whole_deal_parts(games: int, start: int, size: int, deal: int) -> list[range]:
    """Consecutive ranges of ``size`` games (rounded up to whole deals of ``deal`` games) that
    cover games ``start`` to ``games``."""
    size = max(deal, -(-size // deal) * deal)
    return [range(first, min(first + size, games)) for first in range(start, games, size)]


class StopTracker:
    """The failures counted so far, game by game in order, and the entrants due to be stopped."""

    def __init__(self, entrants: int, max_failures: int) -> None:
        self.failures = [0] * entrants
        self.max_failures = max_failures

    @property
    def due(self) -> frozenset[int]:
        """The entrants one process would have stopped before the next game."""
        return frozenset(entrant for entrant, count in enumerate(self.failures) if count >= self.max_failures)

    def accept(self, record: GameRecord) -> bool:
        """Count the next game's failures; False (counting nothing) when it was played with other
        entrants stopped than one process would have stopped."""
        played = frozenset(record.seats[failure.seat] for failure in record.failures if failure.kind == STOPPED)
        if played != self.due:
            return False
        for failure in record.failures:
            if failure.kind != STOPPED:
                self.failures[record.seats[failure.seat]] += 1
        return True
