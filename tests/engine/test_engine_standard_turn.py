"""One turn in the standard ruleset: take, then play, then close (RULES.md, A round; R1, R2, R4)."""

from __future__ import annotations

import pytest
from engine_helpers import B3, B4, play, position, scripted_game, seat_view


def test_a_card_that_fits_may_go_to_the_line_or_the_hand() -> None:
    # Given an empty line and an empty hand, every market card fits both places.
    game = scripted_game(2, 10, 20, 30, B3)

    assert sorted(game.legal_actions()) == sorted(
        [f"take {c} {where}" for c in (10, 20, 30, B3) for where in ("line", "hand")]
    )


def test_after_taking_onto_the_line_with_nothing_to_play_the_player_may_only_close_or_pass() -> None:
    # R1: the play step would offer only "pass", so it is skipped.
    game = play(scripted_game(2, 10, 20, 30, 40), "take 10 line")

    assert game.current_player == 0
    assert game.phase_name == "close"
    assert game.legal_actions() == ["close", "pass"]


def test_the_card_just_taken_into_the_hand_may_be_played_at_once() -> None:
    game = play(scripted_game(2, 10, 20, 30, 40), "take 20 hand")

    assert game.phase_name == "play"
    assert game.legal_actions() == ["play 20", "pass"]
    play(game, "play 20")
    assert seat_view(game, 0)["line"] == [20]
    assert seat_view(game, 0)["hand"] == []
    assert game.legal_actions() == ["close", "pass"]


def test_an_empty_line_cannot_be_closed_so_keeping_the_card_ends_the_turn() -> None:
    # R1: with an empty line the close step would offer only "pass", so the turn ends.
    game = play(scripted_game(2, 10, 20, 30, 40), "take 20 hand", "pass")

    assert game.current_player == 1
    assert seat_view(game, 0)["hand"] == [20]
    assert "close" not in game.legal_actions()


def test_closing_ends_the_turn_and_empties_the_line() -> None:
    game = play(scripted_game(2, 10, 20, 30, 40), "take 10 line", "close")

    assert game.current_player == 1
    assert seat_view(game, 0)["line"] == []
    assert game.scores() == [0, 0]


def test_passing_the_close_keeps_the_line_for_the_next_turn() -> None:
    game = play(scripted_game(2, 10, 20, 30, 40), "take 10 line", "pass")

    assert game.current_player == 1
    assert seat_view(game, 0)["line"] == [10]


def test_one_card_per_turn_at_most_one_play_and_the_turn_moves_round_the_table() -> None:
    game = scripted_game(3, 10, 20, 30, 40, 50, first_player=1)
    assert game.current_player == 1
    play(game, "take 10 hand", "play 10", "pass")
    assert game.current_player == 2
    play(game, "take 20 line", "pass")
    assert game.current_player == 0


@pytest.mark.parametrize(
    ("line", "fitting", "not_fitting"),
    [
        ([10], [5, 50], []),  # one number card: no direction yet, anything fits
        ([10, 20], [21, 90], [19, 5]),  # ascending: strictly above the last number card
        ([30, 20], [19, 1], [21, 25]),  # descending: strictly below the last number card
        ([B3, 30, 20], [19], [21]),  # a bet card does not set the direction ...
        ([30, B3, 40], [41], [35]),  # ... nor count as the last number card
    ],
    ids=["one card", "ascending", "descending", "bet first", "bet between"],
)
def test_a_number_card_fits_when_it_continues_the_direction_from_the_last_number_card(
    line: list[int], fitting: list[int], not_fitting: list[int]
) -> None:
    market = [*fitting, *not_fitting]
    market += [card for card in (70, 71, 72, 73) if card not in market][: 4 - len(market)]
    # A full hand, so a card that does not fit the line can only force a close.
    game = position(market=market, lines=[line, []], hands=[[98, 99], []])

    legal = game.legal_actions()
    for card in fitting:
        assert f"take {card} line" in legal
    for card in not_fitting:
        assert f"take {card} forced-close" in legal


def test_the_direction_is_set_by_the_second_number_card() -> None:
    game = play(scripted_game(2, 50, 80, 10, 60, 40, 70, 20, 90), "take 50 line", "pass", "take 80 line", "pass")
    assert seat_view(game, 0)["direction"] is None

    # Round 2 starts with seat 1 (the first player rotates each round).
    assert game.current_player == 1
    play(game, "take 90 line", "pass", "take 40 line", "pass")

    assert (seat_view(game, 0)["line"], seat_view(game, 0)["direction"]) == ([50, 40], "down")
    assert (seat_view(game, 1)["line"], seat_view(game, 1)["direction"]) == ([80, 90], "up")


def test_a_bet_card_fits_any_line_without_a_bet_even_an_empty_one() -> None:
    empty = position(market=[B3, 10, 20, 30])
    assert "take 101 line" in empty.legal_actions()

    long_line = position(market=[B3, 10, 20, 30], lines=[[50, 40, 31], []])
    assert "take 101 line" in long_line.legal_actions()

    with_bet = position(market=[B4, 10, 20, 30], lines=[[B3, 50], []])
    assert "take 103 line" not in with_bet.legal_actions()
    assert "take 103 hand" in with_bet.legal_actions()


def test_a_full_hand_leaves_only_the_line_or_a_forced_close() -> None:
    game = position(market=[25, 40, 50, 60], lines=[[10, 20, 30], []], hands=[[5, 8], []])

    assert sorted(game.legal_actions()) == ["take 25 forced-close", "take 40 line", "take 50 line", "take 60 line"]


def test_a_forced_close_scores_the_old_line_and_starts_a_new_one_with_the_card() -> None:
    # Given a line of four number cards and a full hand that fits nowhere,
    game = position(market=[25, 40, 50, 60], lines=[[10, 20, 30, 35], []], hands=[[5, 8], []])

    # when the player takes a card that does not fit,
    play(game, "take 25 forced-close")

    # then the first three cards are discarded, the fourth scores, and 25 starts the new line.
    assert seat_view(game, 0)["line"] == [25]
    assert game.scores() == [1, 0]


def test_after_a_forced_close_the_player_may_still_play_and_close() -> None:
    # R2: "steps 2 and 3 follow as usual".
    game = play(position(market=[25, 40, 50, 60], lines=[[10, 20, 30], []], hands=[[5, 8], []]), "take 25 forced-close")

    assert game.current_player == 0
    assert sorted(game.legal_actions()) == ["pass", "play 5", "play 8"]
    play(game, "play 8")
    assert seat_view(game, 0)["line"] == [25, 8]
    assert seat_view(game, 0)["direction"] == "down"
    assert game.legal_actions() == ["close", "pass"]
    play(game, "close")
    assert game.current_player == 1


def test_a_second_bet_with_a_full_hand_forces_a_close_and_starts_the_new_line() -> None:
    # R4. The old line [10, B3, 20, 30, 40] has three numbers after its bet: +3, and 40 scores.
    game = position(market=[B4, 1, 2, 3], lines=[[10, B3, 20, 30, 40], []], hands=[[5, 8], []])
    assert "take 103 forced-close" in game.legal_actions()

    play(game, "take 103 forced-close")

    assert seat_view(game, 0)["line"] == [B4]
    assert seat_view(game, 0)["tokens"] == [3]
    assert game.scores() == [4, 0]


def test_a_line_holding_only_a_bet_card_can_be_closed_and_its_bet_is_lost() -> None:
    game = play(position(market=[B3, 10, 20, 30]), "take 101 line")

    assert game.legal_actions() == ["close", "pass"]
    play(game, "close")
    assert seat_view(game, 0)["tokens"] == [-3]
    assert game.scores() == [-3, 0]
