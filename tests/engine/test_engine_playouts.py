"""Thousands of random games: every invariant holds at every step, and the engine agrees
decision by decision with an independent reading of the rules (reference_model.py)."""

from __future__ import annotations

import itertools
import random

import pytest
import reference_model
from engine_helpers import every_card_location
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lineit.engine import ALL_CARDS, GameState, IllegalAction, new_game, rounds_in_game
from lineit.engine.actions import ACTIONS

# Styles of random play, so that rare situations (full hands, forced closes, bets kept for the
# final plays) happen often: each weighs the legal actions by what they do.
STYLE_WEIGHTS = {
    "uniform": {},
    "hoarder": {"hand": 6.0, "pass": 4.0, "close": 0.2},
    "closer": {"close": 6.0, "forced-close": 6.0, "hand": 0.3},
    "builder": {"line": 5.0, "play": 5.0, "close": 0.3, "pass": 0.5},
    "patient": {},  # see patient_choice
}


def weight(action: str, weights: dict[str, float]) -> float:
    word = action.split()[-1] if action.startswith("take") else action.split()[0]
    return weights.get(word, 1.0)


def patient_choice(rng: random.Random, state: GameState, legal: list[str]) -> str | None:
    """Grow the line in small steps and never close by choice: long lines, fourth cards of a colour."""
    line = state.lines[state.current_player]
    last = line.last

    def step(action: str) -> int:
        card = int(action.split()[1])
        return 1000 if card > 100 else abs(card - last)

    growing = [a for a in legal if (a.startswith("take") and a.endswith(" line")) or a.startswith("play")]
    if growing and rng.random() < 0.9:
        return min(growing, key=step)
    if "pass" in legal and "close" in legal:
        return "pass"
    return None


def choose(rng: random.Random, state: GameState, style: str) -> str:
    legal = state.legal_actions()
    if style == "patient":
        action = patient_choice(rng, state, legal)
        if action is not None:
            return action
    weights = STYLE_WEIGHTS.get(style, {})
    return rng.choices(legal, [weight(action, weights) for action in legal])[0]


def check_invariants(state: GameState) -> None:
    counts = every_card_location(state)
    assert set(counts) == set(ALL_CARDS) and set(counts.values()) == {1}, "a card is lost or duplicated"
    legal = state.legal_actions()
    assert len(legal) == len(set(legal))
    assert legal != ["pass"], "R1: a decision with 'pass' as its only choice must be skipped"
    assert bool(legal) != state.is_over
    for seat in range(state.num_players):
        player = state.observation(seat)["players"][seat]
        assert len(player["hand"]) <= 2
        line = player["line"]
        assert sum(card > 100 for card in line) <= 1
        numbers = [card for card in line if card <= 100]
        steps = {b > a for a, b in itertools.pairwise(numbers)}
        assert len(steps) <= 1, f"line {line} changes direction"
        assert player["colour_counts"] == [sum((n - 1) % 4 == c for n in numbers) for c in range(4)]
        assert player["score"] == player["score_pile"] + sum(player["tokens"])


def probe_an_illegal_action(state: GameState, rng: random.Random) -> None:
    legal = set(state.legal_actions())
    action = rng.choice([a for a in ACTIONS if a not in legal])
    before = (state.observation(0), list(state.history), state.current_player)
    with pytest.raises(IllegalAction):
        state.apply(action)
    assert (state.observation(0), list(state.history), state.current_player) == before


def check_end(state: GameState) -> None:
    n = state.num_players
    rounds = rounds_in_game(n)
    assert state.observation(0)["round"] == rounds
    takes = [action for _seat, action in state.history if action.startswith("take")]
    assert len(takes) == rounds * n, "every player takes exactly one card per round"
    for seat in range(n):
        player = state.observation(seat)["players"][seat]
        assert player["line"] == []
        assert all(abs(token) in (3, 4, 5) for token in player["tokens"])
    assert sum(len(state.observation(0)["players"][s]["tokens"]) for s in range(n)) <= 6
    assert state.observation(0)["draw_count"] == 0 and state.observation(0)["market"] == []


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(min_value=2, max_value=5),
    ruleset=st.sampled_from(["standard", "bga"]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    style=st.sampled_from(sorted(STYLE_WEIGHTS)),
)
def test_every_invariant_holds_at_every_step_of_a_random_game(
    players: int, ruleset: str, seed: int, style: str
) -> None:
    rng = random.Random(seed)
    state = new_game(players, ruleset, seed=seed, first_player=seed % players)
    while not state.is_over:
        check_invariants(state)
        if rng.random() < 0.05:
            probe_an_illegal_action(state, rng)
        state.apply(choose(rng, state, style))
    check_invariants(state)
    check_end(state)


def compare_with_reference(players: int, ruleset: str, seed: int, style: str) -> GameState:
    """Play one game in the engine and in the reference model side by side; return the engine's."""
    rng = random.Random(seed)
    state = new_game(players, ruleset, seed=seed, first_player=seed % players)
    table = reference_model.Table(players, ruleset, list(state.deck), first=seed % players)
    model = reference_model.play_table(table)
    decision = next(model, None)
    while decision is not None:
        seat, legal = decision
        assert state.current_player == seat, f"after {state.history[-3:]}"
        assert sorted(state.legal_actions()) == sorted(legal), f"after {state.history[-3:]}"
        action = choose(rng, state, style)
        state.apply(action)
        decision = _next_decision(model, action)
        observation = state.observation(0)
        players_seen = observation["players"]
        assert [p["line"] for p in players_seen] == table.lines
        assert [sorted(p["hand"]) for p in players_seen] == [sorted(hand) for hand in table.hands]
        assert [p["score_pile"] for p in players_seen] == table.piles
        assert [p["tokens"] for p in players_seen] == table.tokens
        assert [sorted(pile) for pile in observation["jackpots"]] == [sorted(pile) for pile in table.jackpots]
        assert sorted(observation["market"]) == sorted(table.market)
    assert state.is_over
    assert state.scores() == reference_model.scores(table)
    return state


def _next_decision(model: reference_model.Game, action: str) -> reference_model.Decision | None:
    try:
        return model.send(action)
    except StopIteration:
        return None


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["standard", "bga"])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_engine_agrees_with_the_reference_model_on_many_random_games(players: int, ruleset: str) -> None:
    for game in range(100):
        style = sorted(STYLE_WEIGHTS)[game % len(STYLE_WEIGHTS)]
        compare_with_reference(players, ruleset, seed=1000 * players + game, style=style)


def test_a_clone_is_independent_of_its_original() -> None:
    rng = random.Random(3)
    state = new_game(3, seed=3)
    for _ in range(40):
        state.apply(rng.choice(state.legal_actions()))
    before = [state.observation(seat) for seat in range(3)]
    copy = state.clone()

    while not copy.is_over:
        copy.apply(copy.legal_actions()[-1])

    assert [state.observation(seat) for seat in range(3)] == before
    assert not state.is_over
