"""Illegal actions change nothing and say why; replays re-run and verify a game (R13 forfeits)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from engine_helpers import play, position, random_playout, scripted_game

from lineit.engine import (
    RULES_VERSION,
    GameState,
    IllegalAction,
    ReplayError,
    new_game,
    ranks_with_forfeits,
    record_replay,
    replay_game,
    verify_replay,
)


def snapshot(game: GameState) -> list[Any]:
    return [game.observation(seat) for seat in range(game.num_players)] + [list(game.history), game.current_player]


@pytest.mark.parametrize(
    ("setup", "action", "reason"),
    [
        ((), "take 99 line", "not in the market"),
        ((), "play 10", "take a market card first"),
        ((), "close", "take a card"),
        ((), "pass", "must take a market card first"),
        ((), "take 10 forced-close", "forced close happens only"),
        ((), "jump", "not an action"),
        ((), "", "not an action"),
        ((), None, "not an action"),
        ((), ["take", 10, "line"], "not an action"),
        (("take 10 line",), "take 20 line", "already took"),
        (("take 10 hand",), "close", "play a hand card or pass first"),
        (("take 10 line", "pass", "take 20 line"), "play 30", "already played or passed"),
    ],
)
def test_an_illegal_action_is_refused_with_a_reason_and_changes_nothing(
    setup: tuple[str, ...], action: object, reason: str
) -> None:
    game = play(scripted_game(2, 10, 20, 30, 40), *setup)
    before = snapshot(game)

    with pytest.raises(IllegalAction, match=reason) as raised:
        game.apply(action)  # type: ignore[arg-type]

    assert snapshot(game) == before
    assert "legal now" in str(raised.value)


def test_taking_a_card_that_does_not_fit_onto_the_line_is_explained() -> None:
    game = position(market=[5, 40, 50, 60], lines=[[10, 20], []], hands=[[1, 2], []])
    with pytest.raises(IllegalAction, match="does not fit: your line is ascending, last number 20"):
        game.apply("take 5 line")
    with pytest.raises(IllegalAction, match="hand already holds 2 cards"):
        game.apply("take 40 hand")


def test_an_empty_line_cannot_be_closed_in_bga() -> None:
    game = position(ruleset="bga", market=[5, 40, 50, 60])
    with pytest.raises(IllegalAction, match="no cards cannot be closed"):
        game.apply("close")


def finished_game(players: int = 3, ruleset: str = "standard", seed: int = 21) -> GameState:
    return random_playout(new_game(players, ruleset, seed=seed), random.Random(seed))


def test_a_recorded_replay_verifies_and_survives_json() -> None:
    game = finished_game()
    document = json.loads(json.dumps(record_replay(game, ["alice", "bob", "carol"], seed=21)))

    verification = verify_replay(document)

    assert verification.ok, verification.message
    assert verification.scores == game.scores()
    assert document["rules_version"] == RULES_VERSION
    assert document["num_players"] == 3


@pytest.mark.parametrize("ruleset", ["standard", "bga"])
def test_replaying_rebuilds_the_same_game(ruleset: str) -> None:
    game = finished_game(4, ruleset, seed=5)
    again = replay_game(record_replay(game, ["a", "b", "c", "d"]))

    assert again.history == game.history
    assert again.scores() == game.scores()
    assert again.observation(0) == game.observation(0)


def test_the_same_seed_and_actions_always_give_the_same_game() -> None:
    game = finished_game(5, "bga", seed=77)
    again = new_game(5, "bga", seed=77)
    for _seat, action in game.history:
        again.apply(action)
    assert again.is_over and again.scores() == game.scores()


def tampered(change: str) -> dict[str, Any]:
    document = copy.deepcopy(record_replay(finished_game(), ["alice", "bob", "carol"]))
    if change == "scores":
        document["scores"][0] += 1
    elif change == "ranks":
        document["ranks"] = [1, 1, 1] if document["ranks"] != [1, 1, 1] else [1, 2, 3]
    elif change == "illegal action":
        document["actions"][0][1] = "close"
    elif change == "wrong seat":
        document["actions"][0][0] = (document["actions"][0][0] + 1) % 3
    elif change == "truncated":
        document["actions"].pop()
    elif change == "extra action":
        document["actions"].append([0, "pass"])
    elif change == "deck":
        # The first card taken trades places with the one card never dealt.
        taken = int(document["actions"][0][1].split()[1])
        deck = document["deck"]
        where = deck.index(taken)
        deck[where], deck[-1] = deck[-1], deck[where]
    elif change == "rules version":
        document["rules_version"] = "0.9"
    elif change == "format":
        document["format"] = "chess-pgn"
    elif change == "format version":
        document["format_version"] = 99
    elif change == "players":
        document["players"].pop()
    elif change == "actions":
        document["actions"] = "all of them"
    return document


@pytest.mark.parametrize(
    "change",
    [
        "scores",
        "ranks",
        "illegal action",
        "wrong seat",
        "truncated",
        "extra action",
        "deck",
        "rules version",
        "format",
        "format version",
        "players",
        "actions",
    ],
)
def test_a_tampered_replay_does_not_verify(change: str) -> None:
    verification = verify_replay(tampered(change))
    assert not verification.ok
    assert verification.message


def test_a_replay_is_recorded_only_for_a_finished_game_with_a_name_per_seat() -> None:
    with pytest.raises(ReplayError):
        record_replay(new_game(2, seed=1), ["a", "b"])
    with pytest.raises(ReplayError):
        record_replay(finished_game(), ["a", "b"])


def test_forfeited_seats_rank_last_together_whatever_their_score() -> None:
    # R13.
    assert ranks_with_forfeits([10, 5, 7]) == [1, 3, 2]
    assert ranks_with_forfeits([10, 5, 7], [0]) == [3, 2, 1]
    assert ranks_with_forfeits([10, 5, 7], [0, 2]) == [2, 1, 2]
    assert ranks_with_forfeits([4, 4, 1], []) == [1, 1, 3]


def test_a_replay_with_forfeits_verifies_with_them() -> None:
    game = finished_game()
    document = record_replay(game, ["alice", "bob", "carol"], forfeits=[1])

    assert document["forfeits"] == [1]
    assert document["ranks"][1] == 3
    assert verify_replay(document).ok
