"""The `bga` ruleset (RULES.md, Variant: BGA order; R10, R11): take, play and close in any order."""

from __future__ import annotations

from engine_helpers import play, position, scripted_game, seat_view


def test_before_taking_the_player_may_take_play_or_close_but_not_pass() -> None:
    game = position(ruleset="bga", market=[15, 2, 3, 4], lines=[[10, 20], []], hands=[[30, 5], []])

    legal = game.legal_actions()

    assert {"play 30", "close"} <= set(legal)
    assert "take 15 forced-close" in legal
    assert "play 5" not in legal
    assert "pass" not in legal


def test_playing_first_frees_the_hand_and_avoids_a_forced_close() -> None:
    # With a full hand, no market card fits an ascending line at 20. Playing 30 first makes room.
    game = position(ruleset="bga", market=[15, 2, 3, 4], lines=[[10, 20], []], hands=[[30, 5], []])

    play(game, "play 30", "take 15 hand")

    assert seat_view(game, 0)["line"] == [10, 20, 30]
    assert sorted(seat_view(game, 0)["hand"]) == [5, 15]
    assert game.scores() == [0, 0]
    assert game.legal_actions() == ["close", "pass"]


def test_closing_does_not_end_the_turn_and_the_new_line_may_start_from_the_hand() -> None:
    game = position(ruleset="bga", market=[15, 2, 3, 4], lines=[[10, 20, 30, 40], []], hands=[[80, 5], []])

    play(game, "close")
    assert game.current_player == 0
    assert game.scores() == [1, 0]

    play(game, "take 15 line", "play 5")

    # Take, play and close are all used: the turn ends by itself (R10).
    assert seat_view(game, 0)["line"] == [15, 5]
    assert seat_view(game, 0)["direction"] == "down"
    assert game.current_player == 1


def test_each_step_happens_at_most_once_per_turn() -> None:
    game = position(ruleset="bga", market=[50, 60, 70, 80], lines=[[10, 20], []], hands=[[30, 40], []])

    play(game, "play 30")
    legal = game.legal_actions()
    assert not any(action.startswith("play") for action in legal)

    play(game, "take 50 line", "close")
    assert game.current_player == 1


def test_a_forced_close_leaves_the_voluntary_close_available() -> None:
    # R11: the forced close does not use up the player's own close.
    game = position(ruleset="bga", market=[15, 60, 70, 80], lines=[[10, 20], []], hands=[[5, 8], []])
    assert "take 15 forced-close" in game.legal_actions()

    play(game, "take 15 forced-close")

    assert seat_view(game, 0)["line"] == [15]
    assert sorted(game.legal_actions()) == ["close", "pass", "play 5", "play 8"]
    play(game, "close")
    assert game.current_player == 0
    assert sorted(game.legal_actions()) == ["pass", "play 5", "play 8"]


def test_the_turn_ends_by_itself_when_only_pass_is_left() -> None:
    game = scripted_game(2, 10, 20, 30, 40, ruleset="bga")

    play(game, "take 10 line")
    assert game.current_player == 0
    assert game.legal_actions() == ["close", "pass"]
    play(game, "close")

    assert game.current_player == 1


def test_pass_ends_the_turn_once_the_card_is_taken() -> None:
    game = play(scripted_game(2, 10, 20, 30, 40, ruleset="bga"), "take 10 line", "pass")

    assert game.current_player == 1
    assert seat_view(game, 0)["line"] == [10]


def test_the_observation_tells_which_steps_of_the_turn_are_used() -> None:
    game = play(scripted_game(2, 10, 20, 30, 40, ruleset="bga"), "take 10 line")

    observation = game.observation(0)

    assert observation["phase"] == "turn"
    assert observation["turn"] == {"took": True, "played": False, "closed": False}
