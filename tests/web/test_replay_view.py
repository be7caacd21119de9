"""The viewer's positions are the engine's, for every ruleset and table size (no database)."""

from __future__ import annotations

import itertools
import random

import pytest

from lineit.engine import ReplayError, new_game, record_replay
from lineit_platform.web.replay import replay_sections, replay_view


def played(num_players: int, ruleset: str, seed: int) -> dict:  # type: ignore[type-arg]
    state = new_game(num_players, ruleset, seed=seed)
    choose = random.Random(seed)
    while not state.is_over:
        state.apply(choose.choice(state.legal_actions()))
    return record_replay(state, [f"bot{seat}" for seat in range(num_players)], seed=seed)


@pytest.mark.parametrize(("num_players", "ruleset"), [(2, "standard"), (4, "bga"), (5, "standard")])
def test_every_position_is_the_engines(num_players: int, ruleset: str) -> None:
    document = played(num_players, ruleset, seed=num_players)
    view = replay_view(document)
    state = new_game(num_players, ruleset, deck=document["deck"])
    assert len(view["positions"]) == len(document["actions"]) + 1
    for index, (seat, action) in enumerate(document["actions"]):
        position = view["positions"][index]
        assert position["current"] == seat == view["decisions"][index]["seat"]
        assert position["market"] == state.market and position["jackpots"] == state.jackpots
        assert position["legal"] == state.legal_actions() and action in position["legal"]
        assert [p["line"] for p in position["players"]] == [line.cards for line in state.lines]
        assert [p["tokens"] for p in position["players"]] == state.tokens
        assert [p["score"] for p in position["players"]] == state.scores()
        state.apply(action)
    assert [p["score"] for p in view["positions"][-1]["players"]] == document["scores"] == view["scores"]
    assert view["warning"] == ""


def test_turns_group_one_seats_decisions_within_a_round() -> None:
    view = replay_view(played(3, "standard", seed=9))
    decisions = view["decisions"]
    for before, after in itertools.pairwise(decisions):
        same_turn = before["seat"] == after["seat"] and before["round"] == after["round"] and not after["final"]
        assert (after["turn"] == before["turn"]) is same_turn
        assert after["turn"] in (before["turn"], before["turn"] + 1)
    sections = replay_sections(view)
    assert [s["title"] for s in sections][:2] == ["Round 1", "Round 2"]
    assert sum(len(s["decisions"]) for s in sections) == len(decisions)


def test_a_tampered_result_is_shown_with_a_warning_and_a_broken_replay_is_refused() -> None:
    document = played(2, "standard", seed=4)
    view = replay_view(document | {"scores": [999, 0]})
    assert "recorded scores [999, 0]" in view["warning"]
    with pytest.raises(ReplayError, match="action 0"):
        replay_view(document | {"actions": [[0, "close"], *document["actions"][1:]]})
