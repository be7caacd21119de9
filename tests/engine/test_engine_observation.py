"""What a seat may see (RULES.md, What each player may see; R12) and rebuilding a game from it."""

from __future__ import annotations

import json
import random

import pytest
from engine_helpers import deck_starting_with, play, public_picture, random_playout

from lineit.engine import EngineError, GameState, InvalidSetup, Observer, determinize, new_game


def states_along_a_game(players: int, ruleset: str, seed: int) -> list[GameState]:
    """Clones of one random game at every decision and at its end."""
    rng = random.Random(seed)
    state = new_game(players, ruleset, seed=seed)
    states = [state.clone()]
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
        states.append(state.clone())
    return states


@pytest.mark.parametrize(("players", "ruleset"), [(2, "standard"), (3, "bga"), (5, "standard")])
def test_every_seat_sees_the_same_public_picture_as_plain_json(players: int, ruleset: str) -> None:
    for state in states_along_a_game(players, ruleset, seed=players)[::7]:
        observations = [state.observation(seat) for seat in range(players)]
        for observation in observations:
            assert json.loads(json.dumps(observation)) == observation
        pictures = [public_picture(observation) for observation in observations]
        assert all(picture == pictures[0] for picture in pictures)


def test_only_the_player_to_move_is_given_legal_actions() -> None:
    for state in states_along_a_game(3, "standard", seed=5)[::5]:
        for seat in range(3):
            expected = state.legal_actions() if seat == state.current_player else []
            assert state.observation(seat)["legal_actions"] == expected


def test_unseen_lists_the_draw_pile_sorted_and_its_size() -> None:
    state = new_game(2, seed=9)
    observation = state.observation(1)

    assert observation["unseen"] == sorted(state.deck[4:])
    assert observation["draw_count"] == 102


def test_the_draw_order_is_never_sent() -> None:
    # Two decks with the same first market but the draw pile in opposite orders: within the
    # round, no seat can tell them apart.
    top = [10, 20, 30, 40]
    ascending = deck_starting_with(*top)
    descending = top + list(reversed(ascending[4:]))
    games = [play(new_game(2, deck=deck), "take 10 line", "pass", "take 20 hand") for deck in (ascending, descending)]

    for seat in (0, 1):
        assert games[0].observation(seat) == games[1].observation(seat)


def test_recent_actions_are_what_happened_since_the_seat_last_acted() -> None:
    game = new_game(2, deck=deck_starting_with(10, 20, 30, 40, 50, 60, 70, 80))
    assert game.observation(1)["recent_actions"] == []

    play(game, "take 10 line", "pass")
    assert game.observation(1)["recent_actions"] == [[0, "take 10 line"], [0, "pass"]]

    play(game, "take 20 line", "close")
    assert game.observation(1)["recent_actions"] == []
    assert game.observation(0)["recent_actions"] == [[1, "take 20 line"], [1, "close"]]


def test_an_observation_for_a_seat_that_does_not_exist_is_refused() -> None:
    game = new_game(2, seed=1)
    for seat in (-1, 2, "0", True):
        with pytest.raises(EngineError):
            game.observation(seat)  # type: ignore[arg-type]


def test_the_observation_is_a_copy_a_bot_cannot_use_to_change_the_game() -> None:
    game = new_game(2, seed=4)
    observation = game.observation(0)
    observation["market"].clear()
    observation["legal_actions"].clear()
    observation["players"][0]["hand"].append(1)
    observation["players"][0]["line"].append(1)
    observation["jackpots"][0].append(1)
    observation["unseen"].clear()

    assert len(game.observation(0)["market"]) == 4
    assert game.legal_actions()
    # The engine's own lists are untouched: views are copies (shared between observations
    # until they change, which is why docs/bot-interface.md says observations are read-only).
    assert game.hands[0] == [] and game.lines[0].cards == []
    assert game.jackpots[0] == [] and game.draw_pile_size() == 102
    assert Observer(2, "standard").observe(game, 0)["players"][0]["hand"] == []


def test_cached_observation_parts_match_freshly_built_ones_along_whole_games() -> None:
    import random

    for seed, (players, ruleset) in enumerate([(2, "standard"), (3, "bga"), (5, "standard"), (4, "bga")]):
        game = new_game(players, ruleset, seed=seed)
        uniform = random.Random(seed).random
        while not game.is_over:
            for seat in range(players):
                cached = game.observation(seat)
                assert cached == Observer(players, ruleset).observe(game, seat)
            legal = game.legal_actions()
            game.apply(legal[int(uniform() * len(legal))])


@pytest.mark.parametrize(("players", "ruleset"), [(2, "bga"), (4, "standard"), (5, "bga")])
def test_a_determinized_game_looks_exactly_like_the_observation_it_came_from(players: int, ruleset: str) -> None:
    for state in states_along_a_game(players, ruleset, seed=players * 3)[::11]:
        for seat in range(players):
            observation = state.observation(seat)
            world = determinize(observation, random.Random(seat))
            rebuilt = world.observation(seat)
            assert public_picture(rebuilt) == public_picture(observation)
            assert rebuilt["legal_actions"] == observation["legal_actions"]
            assert world.scores() == state.scores()


def test_a_determinized_game_can_be_played_to_its_end() -> None:
    for state in states_along_a_game(3, "standard", seed=8)[::25]:
        world = determinize(state.observation(0), random.Random(1))
        random_playout(world, random.Random(2))
        assert world.is_over
        assert sorted(world.observation(0)["unseen"]) == []


def test_determinizing_shuffles_only_the_unseen_cards() -> None:
    observation = new_game(2, seed=6).observation(0)
    worlds = [determinize(observation, random.Random(seed)) for seed in range(5)]

    draw_orders = {tuple(world.deck[world.position :]) for world in worlds}
    assert len(draw_orders) > 1
    assert all(sorted(order) == observation["unseen"] for order in draw_orders)


def test_determinizing_something_that_is_not_an_observation_fails_cleanly() -> None:
    with pytest.raises(InvalidSetup):
        determinize({"num_players": 2}, random.Random(0))
