"""The cards (RULES.md, Components) and dealing a new game (Setup, A round)."""

from __future__ import annotations

import pytest

from lineit.engine import (
    ALL_CARDS,
    BET_CARDS,
    NUMBER_CARDS,
    InvalidSetup,
    bet_value,
    card_label,
    colour_of,
    is_bet,
    new_game,
    rounds_in_game,
)


@pytest.mark.parametrize(
    ("card", "colour"),
    [(1, "red"), (2, "blue"), (3, "green"), (4, "yellow"), (37, "red"), (98, "blue"), (99, "green"), (100, "yellow")],
)
def test_a_number_card_takes_its_colour_from_n_mod_4(card: int, colour: str) -> None:
    assert colour_of(card) == colour


def test_there_are_25_number_cards_of_each_colour_and_bets_have_none() -> None:
    counts = {
        colour: sum(colour_of(n) == colour for n in NUMBER_CARDS) for colour in ("red", "blue", "green", "yellow")
    }
    assert counts == {"red": 25, "blue": 25, "green": 25, "yellow": 25}
    assert all(colour_of(bet) is None for bet in BET_CARDS)


def test_the_six_bet_cards_are_two_each_of_3_4_and_5() -> None:
    assert sorted(bet_value(bet) for bet in BET_CARDS) == [3, 3, 4, 4, 5, 5]
    assert all(is_bet(bet) for bet in BET_CARDS)
    assert not any(is_bet(n) or bet_value(n) for n in NUMBER_CARDS)
    assert len(ALL_CARDS) == len(set(ALL_CARDS)) == 106


def test_labels_name_numbers_plainly_and_bets_by_value() -> None:
    assert [card_label(c) for c in (7, 100, 101, 104, 106)] == ["7", "100", "B3", "B4", "B5"]


@pytest.mark.parametrize(("players", "rounds"), [(2, 26), (3, 21), (4, 17), (5, 15)])
def test_the_number_of_rounds_follows_from_106_cards(players: int, rounds: int) -> None:
    assert rounds_in_game(players) == rounds
    assert new_game(players, seed=1).observation(0)["rounds"] == rounds


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_new_game_deals_players_plus_two_cards_and_nothing_else(players: int) -> None:
    observation = new_game(players, seed=3).observation(0)

    assert len(observation["market"]) == players + 2
    assert observation["draw_count"] == 106 - (players + 2)
    assert observation["jackpots"] == [[], [], [], []]
    assert observation["round"] == 1
    assert observation["phase"] == "take"
    for player in observation["players"]:
        assert (player["line"], player["hand"], player["score_pile"], player["tokens"]) == ([], [], 0, [])


def test_the_deck_is_dealt_from_the_top() -> None:
    deck = list(reversed(ALL_CARDS))
    observation = new_game(3, deck=deck).observation(0)
    assert observation["market"] == [106, 105, 104, 103, 102]


def test_the_same_seed_deals_the_same_game_and_another_seed_another() -> None:
    first, again, other = new_game(4, seed=11), new_game(4, seed=11), new_game(4, seed=12)
    assert first.deck == again.deck
    assert first.deck != other.deck
    assert sorted(first.deck) == list(ALL_CARDS)


def test_the_first_player_may_be_chosen() -> None:
    state = new_game(3, seed=1, first_player=2)
    assert state.current_player == 2
    assert state.observation(0)["first_player"] == 2


@pytest.mark.parametrize(
    "arguments",
    [
        {"num_players": 1, "seed": 1},
        {"num_players": 6, "seed": 1},
        {"num_players": "2", "seed": 1},
        {"num_players": 2, "ruleset": "house", "seed": 1},
        {"num_players": 2, "seed": 1, "first_player": 2},
        {"num_players": 2, "seed": 1, "first_player": -1},
        {"num_players": 2},
        {"num_players": 2, "deck": list(ALL_CARDS)[:-1]},
        {"num_players": 2, "deck": [*list(ALL_CARDS)[:-1], 1]},
        {"num_players": 2, "deck": [0, *list(ALL_CARDS)[1:]]},
    ],
    ids=[
        "one player",
        "six players",
        "player count as text",
        "unknown ruleset",
        "first player past the table",
        "negative first player",
        "neither seed nor deck",
        "short deck",
        "duplicate card",
        "card zero",
    ],
)
def test_a_game_that_cannot_exist_is_refused_with_invalid_setup(arguments: dict[str, object]) -> None:
    with pytest.raises(InvalidSetup):
        new_game(**arguments)  # type: ignore[arg-type]
