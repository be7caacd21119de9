"""The rules of a line, written once in ``Line`` and used by the state and the bots; and the
observer, which keeps the parts of an observation that did not change (tests/sandbox relies on
that sharing to send only what changed)."""

from __future__ import annotations

import random

from engine_helpers import B4, RED_JACKPOT, play, position, scripted_game

from lineit.engine import Line, Observer, new_game


def test_a_line_rebuilt_from_its_cards_is_the_engine_s_line() -> None:
    rng = random.Random(3)
    for seed in range(20):
        state = new_game(3, "bga", seed=seed)
        while not state.is_over:
            for line in state.lines:
                rebuilt = Line.from_cards(line.cards)
                fields = ("cards", "numbers", "last", "direction", "bet", "after_bet", "colours", "fit_table")
                assert [getattr(rebuilt, name) for name in fields] == [getattr(line, name) for name in fields]
            state.apply(rng.choice(state.legal_actions()))


def test_close_points_is_what_closing_the_line_scores() -> None:
    rng = random.Random(4)
    closes = 0
    for seed in range(30):
        state = new_game(2, "standard", seed=seed)
        while not state.is_over:
            legal = state.legal_actions()
            action = "close" if "close" in legal and rng.random() < 0.5 else rng.choice(legal)
            seat = state.current_player
            expected = state.lines[seat].close_points()
            before = state.scores()[seat]
            state.apply(action)
            if action == "close":
                closes += 1
                assert state.scores()[seat] - before == expected
    assert closes > 100


def test_a_bet_settles_as_plus_or_minus_its_value() -> None:
    line = Line.from_cards([10, B4, 20, 30, 40])  # three numbers after a bet of 4
    assert (line.bet_token(), line.close_points()) == (-4, 1 - 4)
    line.add(50)
    assert (line.bet_token(), line.close_points()) == (4, 2 + 4)

    tokens: list[int] = []
    out: list[int] = []
    pile: list[int] = []
    line.close(tokens, out, pile)

    assert (tokens, out, pile) == ([4], [B4, 10, 20, 30], [40, 50])
    assert line.cards == [] and line.close_points() == 0 and line.fits(7)


def test_a_copy_is_a_line_of_its_own() -> None:
    line = Line.from_cards([10, 20])  # blue, yellow
    copy = line.copy()
    assert copy.add(30) == -1 and copy.add(31) == -1  # blue, green

    assert line.cards == [10, 20] and line.fits(25) is True and copy.fits(25) is False
    assert copy.colours == [0, 2, 1, 1] and line.colours == [0, 1, 0, 1]


def test_the_third_card_of_a_colour_names_its_jackpot() -> None:
    line = Line.from_cards([1, 5])
    assert line.add(9) == RED_JACKPOT
    assert line.add(13) == -1  # only the third


def test_a_pass_shares_every_view_and_a_move_renews_only_the_mover_s() -> None:
    game = position(market=[9, 40, 50, 60], lines=[[1, 5], [80]], jackpots=[[13, 17], [], [], []])
    first = game.observation(1)

    play(game, "take 40 hand")
    second = game.observation(1)
    play(game, "pass")
    third = game.observation(1)

    assert second["players"][0] is not first["players"][0]
    assert second["players"][1] is first["players"][1]
    assert second["jackpots"] is first["jackpots"] and second["unseen"] is first["unseen"]
    assert all(view is before for view, before in zip(third["players"], second["players"], strict=True))


def test_a_won_jackpot_and_a_new_round_renew_the_jackpots_and_the_unseen_cards() -> None:
    game = position(market=[9, 40, 50, 60], lines=[[1, 5], []], jackpots=[[13, 17], [], [], []])
    first = game.observation(0)

    play(game, "take 9 line")
    won = game.observation(0)

    assert won["jackpots"] is not first["jackpots"] and won["jackpots"][RED_JACKPOT] == []
    assert won["unseen"] is first["unseen"]

    play(game, "pass", "take 40 line", "pass")  # seat 1 ends the round: 50 and 60 are left over
    dealt = game.observation(0)

    assert dealt["jackpots"] is not won["jackpots"] and dealt["jackpots"][1:] == [[50], [], [60]]
    assert dealt["unseen"] is not won["unseen"] and dealt["round"] == won["round"] + 1


def test_a_fresh_observer_sees_what_the_state_s_own_observer_sees() -> None:
    game = scripted_game(2, 10, 20, 30, 40, 50, 60, 70, 80)
    play(game, "take 10 line", "pass", "take 20 line", "close", "take 50 hand")

    for seat in (0, 1):
        assert Observer(2, "standard").observe(game, seat) == game.observation(seat)


def test_a_clone_makes_its_own_observations() -> None:
    game = new_game(2, seed=5)
    before = game.observation(0)
    clone = game.clone()
    clone.apply(clone.legal_actions()[0])

    assert game.observation(0) == before
    assert clone.observation(0) != before
