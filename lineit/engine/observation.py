"""What a seat may see (RULES.md, 'What each player may see'): everything but the draw order.

An observation is plain JSON-compatible data. It gives every seat the same public picture:
every line, every hand, the market, each jackpot's cards, score pile sizes, bet tokens, the
cards not yet seen (sorted, so their order tells nothing) and the actions taken since the
seat last acted. The current player's observation carries its legal actions.

An ``Observer`` builds them from a game state, as OpenSpiel's Observer fills its own buffers:
it owns what it keeps between observations, and the state knows nothing of it.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from .actions import PASS_ACTION
from .errors import InvalidSeat
from .phases import FINAL, PHASE_NAMES, TURN
from .rules import MAX_PLAYERS, MIN_PLAYERS, RULES_VERSION, rounds_in_game

if TYPE_CHECKING:
    from .state import GameState

_DIRECTIONS = {1: "up", -1: "down", 0: None}
_ROUNDS = {n: rounds_in_game(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def _player_view(state: GameState, seat: int) -> dict[str, Any]:
    line = state.lines[seat]
    pile_size = len(state.piles[seat])
    tokens = state.tokens[seat]
    return {
        "line": line.cards.copy(),
        "direction": _DIRECTIONS[line.direction],
        "bet": line.bet or None,
        "after_bet": line.after_bet,
        "colour_counts": line.colours.copy(),
        "hand": state.hands[seat].copy(),
        "score_pile": pile_size,
        "tokens": tokens.copy(),
        "score": pile_size + sum(tokens),
    }


# Every observation has these keys, in this order. A new observation is a copy of its seat's
# frame (the keys fixed for the whole game, and those that change only with a deal or a jackpot
# won, filled in) with the rest assigned: with this many keys that is about twice as fast as a
# dict display, and the fewer keys assigned per observation the faster.
_KEYS = (
    "seat",
    "num_players",
    "ruleset",
    "rules_version",
    "round",
    "rounds",
    "first_player",
    "current_player",
    "phase",
    "turn",
    "final",
    "market",
    "jackpots",
    "players",
    "unseen",
    "draw_count",
    "recent_actions",
    "legal_actions",
)


def _unseen_cards(state: GameState, previous: list[int] | None, dealt_from: int) -> list[int]:
    """The cards not dealt yet, sorted: the previous list less the cards dealt since
    ``dealt_from`` (a copy, for observations already made share the previous one), or sorted
    afresh."""
    deck, position = state.deck, state.position
    if previous is None:
        return sorted(deck[position:])
    cards = previous.copy()
    for card in deck[dealt_from:position]:
        del cards[bisect_left(cards, card)]
    return cards


def _templates(num_players: int, ruleset: str) -> list[dict[str, Any]]:
    templates = []
    for seat in range(num_players):
        template = dict.fromkeys(_KEYS)
        template["seat"] = seat
        template["num_players"] = num_players
        template["ruleset"] = ruleset
        template["rules_version"] = RULES_VERSION
        template["rounds"] = _ROUNDS[num_players]
        templates.append(template)
    return templates


def _cards_in(jackpots: list[list[int]]) -> int:
    return len(jackpots[0]) + len(jackpots[1]) + len(jackpots[2]) + len(jackpots[3])


def check_seat(state: GameState, seat: object) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.num_players:
        raise InvalidSeat(f"seat must be 0 to {state.num_players - 1}, not {seat!r}")
    return seat


class Observer:
    """Builds the observations of one game's seats, keeping the parts that did not change.

    Parts that did not change since the previous observation (a player's view, the jackpots,
    the unseen cards) are the very objects given before: treat an observation as read-only.
    They are copies, never the state's own lists. What changed is read from the state alone:
    a seat's view changes only when that seat acts (anything but a pass) and when the game ends
    (every line closes), which the game's history tells, as it tells the actions each seat has
    not seen yet; the unseen cards, the round and its first player change only when cards are
    dealt, the jackpots then and when one is won. One observer follows one game: the state
    makes its own on its first ``observation()``; a clone starts without one.
    """

    __slots__ = (
        "_ended",
        "_framed",
        "_frames",
        "_jackpot_cards",
        "_jackpots",
        "_jackpots_at",
        "_marks",
        "_seen",
        "_unseen",
        "_unseen_at",
        "_version",
        "_views",
    )

    def __init__(self, num_players: int, ruleset: str) -> None:
        # Per seat, the keys an observation starts from: those fixed for the whole game, and
        # those that change only with a deal or a jackpot won, filled in at ``_version``.
        self._frames = _templates(num_players, ruleset)
        self._framed = [-1] * num_players  # the _version each seat's frame was filled at
        self._version = 0  # counts the changes of the unseen cards and of the jackpots
        self._views: list[dict[str, Any] | None] = [None] * num_players
        self._seen = 0  # the history length the views were checked at
        self._marks = [0] * num_players  # the history length after each seat's last action
        self._ended = False  # whether the views were checked after the game ended
        self._jackpots: list[list[int]] | None = None
        self._jackpots_at = 0  # the deal position the jackpots were checked at
        self._jackpot_cards = 0  # how many cards they held then
        self._unseen: list[int] | None = None
        self._unseen_at = 0  # the deal position the unseen cards were listed at

    def _forget_changes(self, state: GameState) -> None:
        """Drop the kept parts that the actions since the last look changed."""
        history = state.history
        views = self._views
        marks = self._marks
        acted = False
        for index in range(self._seen, len(history)):
            seat, action = history[index]
            marks[seat] = index + 1
            if action != PASS_ACTION:
                views[seat] = None
                acted = True
        self._seen = len(history)
        if state.is_over and not self._ended:
            self._ended = True
            for seat in range(len(views)):
                views[seat] = None
        # The jackpots gain cards only when cards are dealt (a round's leftovers; the rest of the
        # deck at the end) and lose them only when one is won, which empties it: between deals,
        # the number of cards in them tells whether they changed.
        jackpots = self._jackpots
        if jackpots is None:
            return
        if state.position != self._jackpots_at or state.is_over:
            if jackpots != state.jackpots:
                self._jackpots = None
            self._jackpots_at = state.position
        elif acted and _cards_in(state.jackpots) != self._jackpot_cards:
            self._jackpots = None

    def observe(self, state: GameState, seat: object) -> dict[str, Any]:
        """The observation of ``seat`` in ``state`` (this observer's game)."""
        if type(seat) is not int or not 0 <= seat < state.num_players:
            seat = check_seat(state, seat)
        if self._seen != len(state.history):
            self._forget_changes(state)
        views = self._views
        if None in views:
            for other, view in enumerate(views):
                if view is None:
                    views[other] = _player_view(state, other)
        position = state.position
        if self._unseen is None or self._unseen_at != position:
            self._unseen = _unseen_cards(state, self._unseen, self._unseen_at)
            self._unseen_at = position
            self._version += 1
        if self._jackpots is None:
            self._jackpots = [pile.copy() for pile in state.jackpots]
            self._jackpots_at = position
            self._jackpot_cards = _cards_in(self._jackpots)
            self._version += 1
        frame = self._frames[seat]
        if self._framed[seat] != self._version:
            self._framed[seat] = self._version
            frame["round"] = state.round + 1
            frame["first_player"] = state.first
            frame["jackpots"] = self._jackpots
            frame["unseen"] = self._unseen
            frame["draw_count"] = len(self._unseen)
        observation = frame.copy()
        observation["current_player"] = state.current_player
        phase = state.phase
        observation["phase"] = PHASE_NAMES[phase]
        if phase == TURN:
            observation["turn"] = {"took": state.took, "played": state.played, "closed": state.closed}
        elif phase == FINAL:
            observation["final"] = {"pass": state.final_pass + 1, "passed": state.passed.copy()}
        observation["market"] = state.market.copy()
        observation["players"] = views.copy()
        history = state.history
        mark = self._marks[seat]
        observation["recent_actions"] = [[who, action] for who, action in history[mark:]] if mark < len(history) else []
        observation["legal_actions"] = state.legal_actions() if seat == state.current_player else []
        return observation


def private_copy(observation: dict[str, Any]) -> dict[str, Any]:
    """A copy of an observation just made by an observer that shares no dict and no list with
    any other observation, the state or the observer: what a bot may change as it likes.

    An observer shares the parts that did not change (the players' views and their lists, the
    jackpots, the unseen cards) between a seat's observations and between seats (the sandbox
    compares them by identity to send only what changed): those are copied. The rest (its dict,
    the players' list, the market, the turn and final-plays dicts, the recent and the legal
    actions) is made anew for each observation, and copied too, so the bot's damage does not
    even reach the observation it was copied from. tests/botkit/test_observation_isolation.py
    damages every part of every observation a bot gets and checks that nobody else sees it."""
    copied = observation.copy()
    copied["players"] = [_copy_view(view) for view in observation["players"]]
    copied["jackpots"] = [pile.copy() for pile in observation["jackpots"]]
    copied["unseen"] = observation["unseen"].copy()
    copied["market"] = observation["market"].copy()
    copied["legal_actions"] = observation["legal_actions"].copy()
    copied["recent_actions"] = [pair.copy() for pair in observation["recent_actions"]]
    turn, final = observation["turn"], observation["final"]
    if turn is not None:
        copied["turn"] = turn.copy()
    if final is not None:
        copied["final"] = {"pass": final["pass"], "passed": final["passed"].copy()}
    return copied


def _copy_view(view: dict[str, Any]) -> dict[str, Any]:
    copied = view.copy()
    copied["line"] = view["line"].copy()
    copied["colour_counts"] = view["colour_counts"].copy()
    copied["hand"] = view["hand"].copy()
    copied["tokens"] = view["tokens"].copy()
    return copied
