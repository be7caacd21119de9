"""Shared by the tournament-format tests (imported by name: tests/ has no packages)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

from lineit.formats import (
    Entrant,
    MatchOutcome,
    Options,
    Pairing,
    TournamentState,
    first_round,
    is_finished,
    next_round,
    outcome_by_order,
)


def field(count: int) -> list[Entrant]:
    """Entrants 100, 101, ... with ratings that fall with the id (some shared)."""
    return [Entrant(id=100 + index, rating=2000 - 10 * (index // 2), name=f"bot{index}") for index in range(count)]


def random_outcome(pairing: Pairing, rng: random.Random) -> MatchOutcome:
    order = list(pairing.entrants)
    rng.shuffle(order)
    return outcome_by_order(pairing, order)


def play_out(format: str, count: int, options: Options, seed: int = 0, results_seed: int = 0) -> TournamentState:
    """A whole tournament with random match results."""
    rng = random.Random(results_seed)
    state = first_round(format, field(count), options, seed=seed)
    while not is_finished(state):
        assert state.pending is not None
        outcomes = [random_outcome(p, rng) for p in state.pending.pairings if not p.bye]
        state = next_round(state, outcomes)
    return state


def meetings(state: TournamentState) -> Counter[frozenset[int]]:
    met: Counter[frozenset[int]] = Counter()
    for round_ in state.rounds:
        for pairing in round_.pairings:
            for pair in itertools.combinations(pairing.entrants, 2):
                met[frozenset(pair)] += 1
    return met


def seat_counts(state: TournamentState) -> dict[int, list[int]]:
    counts: dict[int, list[int]] = {e.id: [0] * state.options.table_size for e in state.entrants}
    for round_ in state.rounds:
        for pairing in round_.pairings:
            if not pairing.bye:
                for seat, entrant in enumerate(pairing.entrants):
                    counts[entrant][seat] += 1
    return counts


def byes(state: TournamentState) -> Counter[int]:
    return Counter(p.entrants[0] for round_ in state.rounds for p in round_.pairings if p.bye)
