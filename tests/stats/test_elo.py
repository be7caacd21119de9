"""The Elo maths, with the check values of PLATFORM-NOTES.md. No database."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lineit.stats.elo import (
    K_ESTABLISHED,
    K_PROVISIONAL,
    PROVISIONAL_GAMES,
    START_RATING,
    EloTable,
    expected_score,
    game_deltas,
    k_factor,
    pair_score,
)


def textbook_deltas(ratings: list[float], ranks: list[int], ks: list[float]) -> list[float]:
    """The module docstring's formula, pair by pair, with expected_score (game_deltas takes a
    shorter road to the same sums)."""
    n = len(ratings)
    return [
        ks[i]
        / (n - 1)
        * sum(pair_score(ranks[i], ranks[j]) - expected_score(ratings[i], ratings[j]) for j in range(n) if j != i)
        for i in range(n)
    ]


def test_two_equal_players_k32_a_win_moves_16_each_way() -> None:
    assert game_deltas([1500, 1500], [1, 2], [32, 32]) == pytest.approx([16.0, -16.0])


def test_expected_score_1613_against_1609_is_0_506() -> None:
    assert expected_score(1613, 1609) == pytest.approx(0.506, abs=0.0005)


def test_a_tie_between_equals_changes_nothing() -> None:
    assert game_deltas([1500, 1500, 1500], [1, 1, 1], [40, 40, 40]) == [0.0, 0.0, 0.0]


def test_three_players_average_the_pairwise_results() -> None:
    # Equal ratings: first beats both (2 x +1/2), second beats one and loses one, third loses both.
    assert game_deltas([1500, 1500, 1500], [1, 2, 3], [40, 40, 40]) == pytest.approx([20.0, 0.0, -20.0])


def test_k_is_40_while_provisional_then_20() -> None:
    assert k_factor(0) == K_PROVISIONAL == 40
    assert k_factor(PROVISIONAL_GAMES - 1) == 40
    assert k_factor(PROVISIONAL_GAMES) == K_ESTABLISHED == 20


def test_table_starts_at_1500_and_counts_games() -> None:
    table: EloTable[str] = EloTable()
    changes = table.apply(["a", "b"], [1, 2])
    assert [c.before for c in changes] == [START_RATING, START_RATING]
    assert table.ratings == {"a": 1520.0, "b": 1480.0}
    assert table.games == {"a": 1, "b": 1}


def test_k_drops_after_thirty_games() -> None:
    table: EloTable[str] = EloTable()
    for game in range(31):
        changes = table.apply(["a", "b"], [1, 2] if game % 2 else [2, 1])
    assert [c.k for c in changes] == [20.0, 20.0]


def test_one_player_in_two_seats_is_refused() -> None:
    with pytest.raises(ValueError, match="two seats"):
        EloTable().apply(["a", "a"], [1, 2])


@given(
    st.lists(st.floats(min_value=800, max_value=2400), min_size=2, max_size=5),
    st.randoms(use_true_random=False),
)
def test_zero_sum_and_bounded_by_k(ratings: list[float], rng: random.Random) -> None:
    ranks = [rng.randint(1, len(ratings)) for _ in ratings]
    deltas = game_deltas(ratings, ranks, [40.0] * len(ratings))
    assert sum(deltas) == pytest.approx(0.0, abs=1e-9)
    assert all(abs(delta) <= 40.0 for delta in deltas)


def test_same_games_same_order_give_identical_ratings() -> None:
    rng = random.Random(5)
    games = []
    for _ in range(500):
        players = rng.sample(range(8), rng.randint(2, 5))
        games.append((players, [rng.randint(1, len(players)) for _ in players]))
    first: EloTable[int] = EloTable()
    second: EloTable[int] = EloTable()
    for players, ranks in games:
        first.apply(players, ranks)
    for players, ranks in games:
        second.apply(players, ranks)
    assert first.ratings == second.ratings


def test_the_table_agrees_with_the_textbook_formula() -> None:
    table: EloTable[str] = EloTable()
    table.seed("a", 1613.0, 40)
    table.seed("b", 1609.0, 3)
    table.seed("c", 1450.0, 0)
    changes = table.apply(["a", "b", "c"], [2, 1, 2])
    expected = textbook_deltas([1613.0, 1609.0, 1450.0], [2, 1, 2], [20.0, 40.0, 40.0])
    assert [change.delta for change in changes] == pytest.approx(expected, rel=1e-12)
    assert [change.after for change in changes] == pytest.approx(
        [1613.0 + expected[0], 1609.0 + expected[1], 1450.0 + expected[2]]
    )
    assert table.games == {"a": 41, "b": 4, "c": 1}


@given(
    st.lists(st.floats(min_value=800, max_value=2400), min_size=2, max_size=5),
    st.randoms(use_true_random=False),
)
def test_game_deltas_are_the_textbook_formula(ratings: list[float], rng: random.Random) -> None:
    ranks = [rng.randint(1, len(ratings)) for _ in ratings]
    ks = [rng.choice((K_PROVISIONAL, K_ESTABLISHED)) for _ in ratings]
    assert game_deltas(ratings, ranks, ks) == pytest.approx(textbook_deltas(ratings, ranks, ks), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(
    "players, ks",
    [(1, [40.0]), (6, [40.0] * 6), (2, [40.0, 40.0, 40.0])],
    ids=["one player", "six players", "three Ks for two players"],
)
def test_a_game_of_one_or_six_players_or_one_k_too_many_is_refused(players: int, ks: list[float]) -> None:
    with pytest.raises(ValueError, match="2 to 5 players"):
        game_deltas([1500.0] * players, list(range(1, players + 1)), ks)


@pytest.mark.parametrize("players", [1, 6])
def test_the_table_refuses_a_game_of_one_or_six_players_and_changes_nothing(players: int) -> None:
    table: EloTable[int] = EloTable()
    with pytest.raises(ValueError, match="2 to 5 players"):
        table.apply(list(range(players)), list(range(1, players + 1)))
    assert table.ratings == {} and table.games == {}
