"""The end of the game (RULES.md, End of the game; R6-R9): final plays, closing, scores and ranks."""

from __future__ import annotations

import pytest
from engine_helpers import B3, B4, B5, RED_JACKPOT, play, position, seat_view

from lineit.engine import GameState, IllegalAction


def last_round_played() -> GameState:
    """Both turns of the last round are played; seat 1 was its first player.

    Seat 0: line 10 20 25 (up), hand 30 40 (both fit). Seat 1: line 60 50 48 (down), hand 45 70
    (only 45 fits). The draw pile is empty, so the game goes on to the final plays.
    """
    game = position(
        market=[48, 25, 2, 3],
        lines=[[10, 20], [60, 50]],
        hands=[[30, 40], [45, 70]],
        unseen=[],
        first=1,
        current=1,
        round_number=26,
    )
    return play(game, "take 48 line", "pass", "pass", "take 25 line", "pass", "pass")


def test_the_final_plays_start_with_the_first_player_of_the_last_round() -> None:
    # R6: the first player does not rotate after the last round.
    game = last_round_played()
    observation = game.observation(1)

    assert game.phase_name == "final"
    assert game.current_player == 1
    assert observation["first_player"] == 1
    assert observation["final"] == {"pass": 1, "passed": [False, False]}
    assert observation["legal_actions"] == ["play 45", "pass"]


def test_the_leftovers_of_the_last_round_go_to_the_jackpots_before_the_final_plays() -> None:
    game = last_round_played()
    assert [sorted(pile) for pile in game.observation(0)["jackpots"]] == [[], [2], [3], []]
    assert game.observation(0)["draw_count"] == 0


def test_two_passes_of_final_plays_then_every_line_closes() -> None:
    game = last_round_played()

    play(game, "play 45")
    assert game.current_player == 0
    assert sorted(game.legal_actions()) == ["pass", "play 30", "play 40"]
    play(game, "play 30")

    # Second pass: seat 1 cannot play (70 does not fit a descending line at 45), so it is skipped (R7).
    assert game.current_player == 0
    assert game.observation(0)["final"]["pass"] == 2
    assert game.legal_actions() == ["play 40", "pass"]
    play(game, "play 40")

    assert game.is_over
    assert game.current_player == -1
    assert game.legal_actions() == []
    # Seat 0 closes 10 20 25 30 40: two score. Seat 1 closes 60 50 48 45: one scores; 70 in hand is lost.
    assert game.scores() == [2, 1]
    assert game.ranks() == [1, 2]
    assert seat_view(game, 0)["line"] == [] and seat_view(game, 1)["line"] == []


def test_a_player_who_passes_plays_no_more() -> None:
    game = play(last_round_played(), "play 45", "pass")

    # Seat 0 still holds two fitting cards, but it passed; seat 1 cannot play: the game is over.
    assert game.is_over
    assert game.scores() == [0, 1]


def test_cards_left_in_hand_score_nothing_and_a_tie_is_a_shared_win() -> None:
    game = play(last_round_played(), "play 45", "play 30", "pass")

    assert game.is_over
    assert seat_view(game, 0)["hand"] == [40]
    assert game.scores() == [1, 1]
    assert game.ranks() == [1, 1]


def test_nothing_can_be_done_once_the_game_is_over() -> None:
    game = play(last_round_played(), "play 45", "pass")
    with pytest.raises(IllegalAction, match="over"):
        game.apply("pass")


def test_a_third_card_in_the_final_plays_wins_a_jackpot_fed_by_the_draw_pile() -> None:
    # 13 and 17 are the last cards of the draw pile: they reach the red jackpot when the game ends.
    game = position(market=[40, 50, 60, 70], lines=[[1, 5], []], hands=[[9], []], unseen=[13, 17], round_number=26)
    play(game, "take 40 hand", "pass", "pass", "take 50 line", "pass")
    assert game.phase_name == "final"
    assert game.observation(0)["jackpots"][RED_JACKPOT] == [13, 17]

    play(game, "play 9")
    assert game.scores() == [2, 0]
    assert game.observation(0)["jackpots"][RED_JACKPOT] == []

    play(game, "play 40")  # second pass: 1 5 9 are discarded, 40 scores
    assert game.is_over
    assert game.scores() == [3, 0]


def test_the_game_ends_at_once_when_nobody_can_make_a_final_play() -> None:
    game = position(market=[40, 50, 60, 70], unseen=[1, 2, 3], round_number=26)
    play(game, "take 40 line", "pass", "take 50 line", "pass")

    assert game.is_over
    assert game.scores() == [0, 0]


def test_a_bet_card_may_be_a_final_play_and_is_then_lost() -> None:
    # R8: the bet fits a line without a bet; it closes with nothing after it: -4.
    game = position(market=[30, 40, 50, 60], lines=[[10, 20], []], hands=[[B4], []], unseen=[])
    play(game, "take 30 line", "pass", "pass", "take 40 line", "pass")
    assert game.legal_actions() == ["play 103", "pass"]

    play(game, "play 103")

    assert game.is_over
    assert game.scores() == [-4, 0]


def test_every_line_closes_at_the_end_and_settles_its_bet_either_way() -> None:
    # An unfinished bet costs its value; a bet already made at the end still wins.
    game = position(
        market=[60, 70, 80, 90],
        lines=[[B3, 10], [B5, 11, 12, 13, 14, 15]],
        unseen=[],
    )
    play(game, "take 60 line", "pass", "take 70 line", "pass")

    assert game.is_over
    assert seat_view(game, 0)["tokens"] == [-3]
    assert seat_view(game, 1)["tokens"] == [5]
    # Seat 0: -3, and 10 60 are discarded. Seat 1: +5, and 14 15 70 score after 11 12 13 go.
    assert game.scores() == [-3, 8]


def test_ranks_share_a_place_on_equal_scores_and_skip_the_next() -> None:
    game = position(num_players=3, market=[60, 70, 80, 90, 91], score_piles=[5, 3, 5])
    assert game.scores() == [5, 3, 5]
    assert game.ranks() == [1, 3, 1]


def test_bet_tokens_count_in_the_score() -> None:
    game = position(num_players=3, market=[60, 70, 80, 90, 91], score_piles=[5, 3, 0], tokens=[[-3], [4, 5], []])
    assert game.scores() == [2, 12, 0]
    assert game.ranks() == [2, 1, 3]
