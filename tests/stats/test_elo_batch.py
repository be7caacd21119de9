"""The batch fold (lineit.stats.elo_batch) against EloTable, game by game: the same ratings, bit
for bit, whatever the history. No database."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lineit.stats.elo import EloTable
from lineit.stats.elo_batch import MAX_PLAYERS, EloArrays, fold_games


def history(seed: int, matches: int, players: int) -> list[tuple[list[int], list[list[int]]]]:
    """Matches of 2 to 5 players, each of 1 to 6 games with seats rotated and ties now and then."""
    rng = random.Random(seed)
    out = []
    for _ in range(matches):
        table = rng.sample(range(players), rng.randint(2, min(5, players)))
        games = []
        for index in range(rng.randint(1, 6)):
            seated = table[index % len(table) :] + table[: index % len(table)]
            ranks = [rng.randint(1, len(seated)) for _ in seated]
            games.append([*seated, *ranks])
        out.append((table, games))
    return out


def arrays(matches: list[tuple[list[int], list[list[int]]]]) -> dict[str, np.ndarray]:
    rows = [(place, game) for place, (_, games) in enumerate(matches) for game in games]
    players = np.full((len(rows), MAX_PLAYERS), -1)
    ranks = np.zeros((len(rows), MAX_PLAYERS), dtype=np.int64)
    sizes = np.zeros(len(rows), dtype=np.int64)
    for row, (_, game) in enumerate(rows):
        size = len(game) // 2
        players[row, :size], ranks[row, :size], sizes[row] = game[:size], game[size:], size
    game_match = np.array([place for place, _ in rows], dtype=np.int64)
    return {"game_match": game_match, "players": players, "ranks": ranks, "sizes": sizes}


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), matches=st.integers(1, 120), players=st.integers(2, 12))
def test_the_batch_fold_gives_every_rating_and_change_of_the_table_bit_for_bit(seed, matches, players) -> None:  # type: ignore[no-untyped-def]
    given_matches = history(seed, matches, players)
    table: EloTable[int] = EloTable()
    expected_after = []
    for _, games in given_matches:
        for game in games:
            size = len(game) // 2
            expected_after.append([(change.after, change.delta) for change in table.apply(game[:size], game[size:])])
    state = EloArrays.empty()
    folded = fold_games(state, **arrays(given_matches))
    got_after = [
        list(zip(after[~np.isnan(after)].tolist(), delta[~np.isnan(delta)].tolist(), strict=True))
        for after, delta in zip(folded.after, folded.delta, strict=True)
    ]
    assert got_after == expected_after  # exact floats, not approximately
    assert {p: state.ratings[p] for p in table.ratings} == table.ratings
    assert {p: int(state.games[p]) for p in table.games} == table.games


def test_the_fold_continues_from_a_state_and_counts_provisional_games() -> None:
    """Two folds in a row give what one gives: the K falls from 40 to 20 after 30 games."""
    given_matches = history(5, 60, 3)
    whole, parts = EloArrays.empty(), EloArrays.empty()
    folded = fold_games(whole, **arrays(given_matches))
    fold_games(parts, **arrays(given_matches[:5]))
    fold_games(parts, **arrays(given_matches[5:]))
    assert parts.ratings.tolist() == whole.ratings.tolist()
    assert parts.games.tolist() == whole.games.tolist()
    assert set(folded.k[~np.isnan(folded.k)].tolist()) == {20.0, 40.0}


def test_a_player_in_two_seats_of_a_game_is_refused() -> None:
    bad = arrays([([0, 1], [[0, 0, 1, 2]])])
    with pytest.raises(ValueError, match="two seats"):
        fold_games(EloArrays.empty(), **bad)
