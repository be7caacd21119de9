"""Elo for games of 2 to 5 players, in the pairwise form.

A game of N players counts as N(N-1)/2 two-player results: a pair scores 1, 1/2 or 0 by finishing
place (ties 1/2), the expected score is E = 1 / (1 + 10^((Rj - Ri) / 400)), and each player moves by
K/(N-1) times the sum over opponents of (S - E). With two players this is plain Elo. K is 40 for a
player's first 30 rated games (provisional), then 20. Everyone starts at 1500.

Elo depends on the order of games; callers must apply games in one fixed order. Every function
here is deterministic, so the same games in the same order give bit-identical ratings.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Generic, NamedTuple, TypeVar

START_RATING = 1500.0
PROVISIONAL_GAMES = 30
K_PROVISIONAL = 40.0
K_ESTABLISHED = 20.0

Key = TypeVar("Key", bound=Hashable)


def expected_score(rating: float, opponent: float) -> float:
    """The expected score of a player rated ``rating`` against one rated ``opponent``."""
    return 1.0 / (1.0 + float(10.0 ** ((opponent - rating) / 400.0)))


def pair_score(rank: int, other_rank: int) -> float:
    """1 for finishing ahead (a lower rank), 1/2 for a tie, 0 for finishing behind."""
    if rank < other_rank:
        return 1.0
    if rank == other_rank:
        return 0.5
    return 0.0


def k_factor(games_played: int) -> float:
    """K for a player who has already played ``games_played`` rated games."""
    return K_PROVISIONAL if games_played < PROVISIONAL_GAMES else K_ESTABLISHED


def game_deltas(ratings: Sequence[float], ranks: Sequence[int], ks: Sequence[float]) -> list[float]:
    """The rating change of each player of one game (ranks: 1 is first, equal ranks tie): what
    EloTable.apply adds, so this loop is what recomputing a million games costs (benchmarks/elo.py).

    E_ij = 1 / (1 + 10^((Rj - Ri)/400)) = Qi / (Qi + Qj) with Q = 10^(R/400): n powers, not
    n(n-1). Each pair is visited once: what i gains over expectation against j, j loses."""
    n = len(ratings)
    if not 2 <= n <= 5 or len(ranks) != n or len(ks) != n:
        raise ValueError(f"a rated game has 2 to 5 players with one rank and one K each, not {n}")
    strength = [10.0 ** (rating / 400.0) for rating in ratings]
    totals = [0.0] * n
    for i in range(n - 1):
        rank, mine = ranks[i], strength[i]
        for j in range(i + 1, n):
            surprise = pair_score(rank, ranks[j]) - mine / (mine + strength[j])
            totals[i] += surprise
            totals[j] -= surprise
    share = n - 1
    for i in range(n):
        totals[i] = ks[i] / share * totals[i]
    return totals


class RatingChange(NamedTuple, Generic[Key]):
    player: Key
    before: float
    after: float
    delta: float
    k: float


class EloTable(Generic[Key]):
    """Ratings and rated-game counts of any hashable players, updated one game at a time."""

    def __init__(self) -> None:
        self.ratings: dict[Key, float] = {}
        self.games: dict[Key, int] = {}

    def seed(self, player: Key, rating: float, games: int) -> None:
        self.ratings[player] = rating
        self.games[player] = games

    def rating(self, player: Key) -> float:
        return self.ratings.get(player, START_RATING)

    def apply(self, players: Sequence[Key], ranks: Sequence[int]) -> list[RatingChange[Key]]:
        """Rate one game; ``players[s]`` finished with ``ranks[s]``. Returns one change per player."""
        n = len(players)
        if len(set(players)) != n:
            raise ValueError("a player cannot take two seats in a rated game")
        ratings, games = self.ratings, self.games
        before = [ratings.get(player, START_RATING) for player in players]
        ks = [k_factor(games.get(player, 0)) for player in players]
        deltas = game_deltas(before, ranks, ks)
        changes = []
        for i in range(n):
            player, rating, delta = players[i], before[i], deltas[i]
            changes.append(RatingChange(player, rating, rating + delta, delta, ks[i]))
            ratings[player] = rating + delta
            games[player] = games.get(player, 0) + 1
        return changes
