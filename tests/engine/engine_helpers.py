"""Shared helpers of the engine tests: scripted deals, hand-built positions, invariants.

Engine tests never touch a database. A *scripted deal* fixes the top of the deck so a test
knows every market; a *position* is built from an observation-shaped description through
``determinize`` (the public way a search bot rebuilds a game), so a test can start from a
line, a hand and a jackpot it describes in one call.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from lineit.engine import ALL_CARDS, GameState, determinize, new_game

# Bet card ids by value (two of each): B3 = 101/102, B4 = 103/104, B5 = 105/106.
B3, B3_OTHER, B4, B4_OTHER, B5, B5_OTHER = 101, 102, 103, 104, 105, 106
RED_JACKPOT, BLUE_JACKPOT, GREEN_JACKPOT, YELLOW_JACKPOT = 0, 1, 2, 3


def deck_starting_with(*cards: int) -> list[int]:
    """A full deck whose top cards are ``cards`` (in dealing order); the rest follow ascending."""
    assert len(set(cards)) == len(cards), "a card appears twice in the scripted deal"
    rest = [card for card in ALL_CARDS if card not in set(cards)]
    return list(cards) + rest


def scripted_game(num_players: int, *top: int, ruleset: str = "standard", first_player: int = 0) -> GameState:
    return new_game(num_players, ruleset, deck=deck_starting_with(*top), first_player=first_player)


def play(state: GameState, *actions: str) -> GameState:
    """Apply actions in order; returns the state so calls read as one sentence."""
    for action in actions:
        state.apply(action)
    return state


def position(
    *,
    market: Sequence[int],
    num_players: int = 2,
    ruleset: str = "standard",
    lines: Sequence[Sequence[int]] | None = None,
    hands: Sequence[Sequence[int]] | None = None,
    jackpots: Sequence[Sequence[int]] | None = None,
    tokens: Sequence[Sequence[int]] | None = None,
    score_piles: Sequence[int] | None = None,
    unseen: Sequence[int] | None = None,
    current: int = 0,
    first: int = 0,
    round_number: int = 1,
    phase: str | None = None,
) -> GameState:
    """A game at the start of ``current``'s turn, with exactly the cards described.

    ``unseen`` is the draw pile (default: every card not placed elsewhere, minus what the score
    piles need). Give fewer than ``num_players + 2`` unseen cards to make this the last round.
    """
    lines = lines or [[] for _ in range(num_players)]
    hands = hands or [[] for _ in range(num_players)]
    score_piles = score_piles or [0] * num_players
    placed = [*market, *(c for line in lines for c in line), *(c for hand in hands for c in hand)]
    placed += [c for pile in jackpots or [] for c in pile]
    assert len(placed) == len(set(placed)), "a card is placed twice in the position"
    if unseen is None:
        free = [card for card in ALL_CARDS if card not in set(placed)]
        unseen = free[sum(score_piles) :]
    phase = phase or ("turn" if ruleset == "bga" else "take")
    observation: dict[str, Any] = {
        "num_players": num_players,
        "ruleset": ruleset,
        "round": round_number,
        "first_player": first,
        "current_player": current,
        "phase": phase,
        "turn": {"took": False, "played": False, "closed": False} if phase == "turn" else None,
        "final": None,
        "market": list(market),
        "jackpots": [list(pile) for pile in (jackpots or [[], [], [], []])],
        "players": [
            {
                "line": list(lines[seat]),
                "hand": list(hands[seat]),
                "tokens": list((tokens or [[]] * num_players)[seat]),
                "score_pile": score_piles[seat],
            }
            for seat in range(num_players)
        ],
        "unseen": sorted(unseen),
    }
    return determinize(observation, random.Random(0))


def seat_view(state: GameState, seat: int) -> dict[str, Any]:
    """One seat's public picture as plain data (what a bot would read)."""
    return state.observation(seat)["players"][seat]  # type: ignore[no-any-return]


def every_card_location(state: GameState) -> Counter[int]:
    """How many places hold each card: must be exactly one for all 106 cards."""
    places: Iterable[int] = [
        *state.deck[state.position :],
        *state.market,
        *(card for line in state.lines for card in line.cards),
        *(card for hand in state.hands for card in hand),
        *(card for pile in state.piles for card in pile),
        *(card for pile in state.jackpots for card in pile),
        *state.out,
    ]
    return Counter(places)


def public_picture(observation: dict[str, Any]) -> dict[str, Any]:
    """An observation without what differs by seat (whose view it is, its moves, its news)."""
    return {key: value for key, value in observation.items() if key not in ("seat", "legal_actions", "recent_actions")}


def random_playout(state: GameState, rng: random.Random) -> GameState:
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    return state
