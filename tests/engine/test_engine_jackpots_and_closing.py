"""Jackpots (RULES.md, Jackpots; R5) and closing a line (Closing a line; R3), with hand-computed scores.

Colours: n mod 4 = 1 red, 2 blue, 3 green, 0 yellow. Red cards used below: 1, 5, 9, 13, 17, 21, 25.
"""

from __future__ import annotations

import pytest
from engine_helpers import (
    B3,
    B4,
    B5,
    RED_JACKPOT,
    every_card_location,
    play,
    position,
    scripted_game,
    seat_view,
)

RED_POT = [[13, 17, 21], [], [], []]


def test_the_third_card_of_a_colour_in_the_line_wins_that_jackpot() -> None:
    game = position(market=[9, 40, 50, 60], lines=[[1, 5], []], jackpots=RED_POT)

    play(game, "take 9 line")

    assert game.observation(0)["jackpots"][RED_JACKPOT] == []
    assert seat_view(game, 0)["score_pile"] == 3
    assert game.scores() == [3, 0]


def test_the_third_card_played_from_the_hand_wins_the_jackpot_too() -> None:
    game = position(market=[40, 50, 60, 70], lines=[[1, 5], []], hands=[[9], []], jackpots=RED_POT)

    play(game, "take 40 hand", "play 9")

    assert game.scores() == [3, 0]


def test_the_third_card_after_the_other_colours_still_counts_only_its_own_colour() -> None:
    # Two blues and two greens do not make a third red.
    game = position(market=[9, 40, 50, 60], lines=[[2, 3, 6, 7], []], jackpots=RED_POT)

    play(game, "take 9 line")

    assert game.scores() == [0, 0]
    assert seat_view(game, 0)["colour_counts"] == [1, 2, 2, 0]


def test_the_fourth_card_of_a_colour_wins_nothing() -> None:
    # Ruling: only the third card triggers; this line already holds three reds.
    game = position(market=[25, 40, 50, 60], lines=[[1, 5, 9], []], jackpots=RED_POT)

    play(game, "take 25 line")

    assert game.observation(0)["jackpots"][RED_JACKPOT] == [13, 17, 21]
    assert game.scores() == [0, 0]


def test_an_empty_jackpot_gives_nothing_and_still_uses_the_trigger() -> None:
    # R5. Seat 0 makes its third red while the red jackpot is empty; an unchosen red then fills
    # the jackpot at the end of the round; seat 0's fourth red in the same line must not win it.
    # Fillers: yellow 60 64 68 72 84 88, blue 62 66 70, green 75 79; seat 1 never holds three alike.
    game = scripted_game(2, 1, 60, 64, 68, 5, 62, 66, 70, 9, 13, 72, 75, 17, 79, 84, 88)
    play(game, "take 1 line", "pass", "take 60 line", "pass")  # round 1
    play(game, "take 62 line", "pass", "take 5 line", "pass")  # round 2, seat 1 first
    play(game, "take 9 line", "pass")  # round 3: the third red, with the red jackpot empty
    assert game.scores() == [0, 0]
    play(game, "take 75 line", "pass")  # the round ends: 13 goes to the red jackpot
    assert game.observation(0)["jackpots"][RED_JACKPOT] == [13]

    play(game, "take 79 line", "pass", "take 17 line", "pass")  # round 4: the fourth red

    assert seat_view(game, 0)["line"] == [1, 5, 9, 17]
    assert game.observation(0)["jackpots"][RED_JACKPOT] == [13]
    assert game.scores() == [0, 0]


def test_a_new_line_counts_its_colours_from_zero() -> None:
    # Seat 0 closes a line of two reds; its next red is the first of the new line, not the third.
    game = position(market=[9, 40, 50, 60], lines=[[1, 5], []], jackpots=RED_POT)

    play(game, "take 9 hand", "pass", "close")

    assert seat_view(game, 0)["hand"] == [9]
    assert game.observation(0)["jackpots"][RED_JACKPOT] == [13, 17, 21]
    assert game.scores() == [0, 0]


def test_closing_a_line_never_wins_a_jackpot() -> None:
    # R5: the line holds three reds but the jackpot filled after the third was placed.
    game = position(market=[40, 50, 60, 70], lines=[[1, 5, 9, 30], []], jackpots=RED_POT)

    play(game, "take 40 line", "close")

    assert game.observation(0)["jackpots"][RED_JACKPOT] == [13, 17, 21]
    assert game.scores() == [2, 0]  # 30 and 40 score, 1 5 9 are discarded


def test_unchosen_cards_reach_the_jackpots_only_at_the_end_of_the_round() -> None:
    game = scripted_game(2, 1, 2, 3, 4, 5, 6, 7, 8)
    play(game, "take 1 line", "pass")
    assert game.observation(1)["jackpots"] == [[], [], [], []]

    play(game, "take 2 line", "pass")

    assert [sorted(pile) for pile in game.observation(0)["jackpots"]] == [[], [], [3], [4]]
    assert game.observation(0)["market"] == [5, 6, 7, 8]


def test_unchosen_bet_cards_leave_the_game() -> None:
    game = scripted_game(2, B3, B4, 3, 4, 5, 6, 7, 8)

    play(game, "take 3 line", "pass", "take 4 line", "pass")

    observation = game.observation(0)
    visible = [*observation["unseen"], *observation["market"], *(c for pile in observation["jackpots"] for c in pile)]
    assert B3 not in visible and B4 not in visible
    assert B3 in game.out and B4 in game.out


@pytest.mark.parametrize(
    ("line", "tokens", "score"),
    [
        ([10, 20, 30], [], 0),  # three numbers: all discarded
        ([10, 20, 30, 40, 50], [], 2),  # the first three are discarded, two score
        ([B3, 10, 20, 30], [3], 3),  # three numbers after a bet of 3: won, though nothing scores
        ([10, B3, 20, 30], [-3], -3),  # two after it: lost
        ([B4, 10, 20, 30, 40, 50], [4], 6),  # five after a bet of 4: +4, and 40 50 score
        ([10, 20, B5, 30, 40], [-5], -4),  # two after a bet of 5: -5, and 40 scores
        ([B5, 10, 20, 30, 40, 50], [5], 7),  # exactly X after the bet is enough
        ([B5], [-5], -5),  # a lone bet card
    ],
)
def test_closing_settles_the_bet_discards_three_numbers_and_scores_the_rest(
    line: list[int], tokens: list[int], score: int
) -> None:
    game = position(market=[60, 70, 80, 90], lines=[line, []])
    play(game, "take 60 hand", "pass", "close")

    assert seat_view(game, 0)["line"] == []
    assert seat_view(game, 0)["tokens"] == tokens
    assert game.scores() == [score, 0]


def test_discarded_cards_and_settled_bets_leave_the_game() -> None:
    # R3: they are nowhere a player could see them again, and no card is lost or duplicated.
    game = position(market=[60, 70, 80, 90], lines=[[B4, 10, 20, 30, 40], []])
    play(game, "take 60 line", "close")

    observation = game.observation(1)
    visible = {*observation["unseen"], *observation["market"], *(c for pile in observation["jackpots"] for c in pile)}
    assert visible.isdisjoint({B4, 10, 20, 30})
    assert {B4, 10, 20, 30} <= set(game.out)
    assert seat_view(game, 0)["score_pile"] == 2
    assert set(every_card_location(game).values()) == {1}


def test_a_player_bet_counts_only_number_cards_placed_after_it() -> None:
    game = position(market=[60, 70, 80, 90], lines=[[10, 20, B3, 30], []])
    play(game, "take 60 line")
    assert seat_view(game, 0)["after_bet"] == 2

    play(game, "pass")
    assert game.scores() == [0, 0]  # nothing settles until the line closes
