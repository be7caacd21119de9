"""The state of one game of Line-it, in the OpenSpiel manner.

``new_game`` deals; then, until ``is_over``, the ``current_player`` picks one of
``legal_actions()`` and the caller passes it to ``apply``. Anything else raises
``IllegalAction`` and changes nothing. Decisions are atomic (take, then play or pass, then
close or pass); a decision whose only choice would be ``pass`` is skipped, so a player who
must decide always has a real choice.
"""

from __future__ import annotations

import random
from typing import Any, Final, cast

from . import actions as A
from .cards import ALL_CARDS, COLOUR_INDEX
from .errors import IllegalAction
from .explain import explain_illegal
from .line import Line
from .observation import Observer
from .phases import CLOSE, FINAL, OVER, PHASE_NAMES, PLAY, TAKE, TURN
from .rules import BGA

_CLOSE_OR_PASS: Final = [A.CLOSE_ACTION, A.PASS_ACTION]  # shared: never mutated
# Module globals rather than ``A.X`` attribute lookups: these sit on the hot path.
_ACTIONS: Final = A.ACTIONS
_PLAY_ACTIONS: Final = A.PLAY_ACTIONS
_CLOSE: Final = A.CLOSE_ACTION
_PASS: Final = A.PASS_ACTION
_KIND_PLAY: Final = A.PLAY
_KIND_CLOSE: Final = A.CLOSE
_TO_HAND: Final = A.TO_HAND
_TO_NEW_LINE: Final = A.TO_NEW_LINE


def shuffled_deck(seed: int) -> list[int]:
    """The deck order for a seed: Fisher-Yates driven by ``random.Random(seed).random()``.

    Written out rather than ``Random.shuffle`` because it is several times faster and its
    output is pinned by this code alone (the replay stores the deck anyway).
    """
    order = list(ALL_CARDS)
    uniform = random.Random(seed).random
    for i in range(len(order) - 1, 0, -1):
        j = int(uniform() * (i + 1))
        order[i], order[j] = order[j], order[i]
    return order


class GameState:
    """Everything about one game. Mutated in place by ``apply``; ``clone`` copies it."""

    __slots__ = (
        "_legal",
        "_observer",
        "bga",
        "closed",
        "current_player",
        "deck",
        "final_index",
        "final_pass",
        "first",
        "hands",
        "history",
        "is_over",
        "jackpots",
        "lines",
        "market",
        "num_players",
        "out",
        "passed",
        "phase",
        "piles",
        "played",
        "position",
        "round",
        "ruleset",
        "tokens",
        "took",
        "turn_index",
    )

    def __init__(
        self, num_players: int, ruleset: str, deck: list[int], first_player: int, *, deal: bool = True
    ) -> None:
        self.num_players = num_players
        self.ruleset = ruleset
        self.bga = ruleset == BGA
        self.deck = deck  # the initial order, never mutated: ``position`` is the next card to deal
        self.first = first_player
        self._observer: Observer | None = None  # made by the first observation()
        if not deal:
            return  # clone() and determinize() set every other field themselves
        self.position = 0
        self.market: list[int] = []
        self.lines = [Line() for _ in range(num_players)]
        self.hands: list[list[int]] = [[] for _ in range(num_players)]
        self.piles: list[list[int]] = [[] for _ in range(num_players)]
        self.tokens: list[list[int]] = [[] for _ in range(num_players)]
        self.jackpots: list[list[int]] = [[], [], [], []]
        self.out: list[int] = []  # cards that left the game: discards and settled bets
        self.round = 0
        self.turn_index = 0
        self.current_player = first_player  # the seat that must decide now; -1 once over
        self.is_over = False
        self.phase = TAKE
        self.took = self.played = self.closed = False
        self.final_pass = 0
        self.final_index = 0
        self.passed = [False] * num_players
        self.history: list[tuple[int, str]] = []
        self._legal: list[str] = []
        self._start_round()

    # ----------------------------------------------------------------- public API
    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def legal_actions(self) -> list[str]:
        return self._legal.copy()

    def apply(self, action: object) -> None:
        """Play ``action``, one of ``legal_actions()``; anything else raises IllegalAction."""
        if action not in self._legal:
            raise IllegalAction(explain_illegal(self, action))
        action = cast(str, action)
        kind, card, destination = _ACTIONS[action]
        seat = self.current_player
        self.history.append((seat, action))
        phase = self.phase
        # The standard order, inlined: take, then play or pass, then close or pass.
        if phase == TAKE:
            self._take(seat, card, destination)
            line = self.lines[seat]
            hand = self.hands[seat]
            if hand:  # a play is offered when a hand card fits (_plays, inlined)
                fit_table = line.fit_table
                plays = []
                for c in hand:
                    if fit_table[c]:
                        plays.append(_PLAY_ACTIONS[c])
                if plays:
                    plays.append(_PASS)
                    self.phase = PLAY
                    self._legal = plays
                    return
            if line.cards:
                self.phase = CLOSE
                self._legal = _CLOSE_OR_PASS
            else:
                self._end_turn()
        elif phase == CLOSE:
            if kind == _KIND_CLOSE:
                self._close_line(seat)
            self._end_turn()
        elif phase == PLAY:
            if kind == _KIND_PLAY:
                self._play(seat, card)
            if self.lines[seat].cards:
                self.phase = CLOSE
                self._legal = _CLOSE_OR_PASS
            else:
                self._end_turn()
        elif phase == TURN:
            self._apply_free_order(seat, kind, card, destination)
        else:  # FINAL
            if kind == _KIND_PLAY:
                self._play(seat, card)
            else:
                self.passed[seat] = True
            self.final_index += 1
            self._next_final_play()

    def scores(self) -> list[int]:
        """Score pile cards plus bet tokens, per seat (final once the game is over)."""
        return [len(pile) + sum(tokens) for pile, tokens in zip(self.piles, self.tokens)]

    def ranks(self) -> list[int]:
        """1 for the best score; tied players share a rank (1, 1, 3)."""
        scores = self.scores()
        return [1 + sum(other > score for other in scores) for score in scores]

    def observation(self, seat: object) -> dict[str, Any]:
        """What ``seat`` may see, as plain JSON data (observation.py builds it)."""
        observer = self._observer
        if observer is None:
            observer = self._observer = Observer(self.num_players, self.ruleset)
        return observer.observe(self, seat)

    def draw_pile_size(self) -> int:
        return len(self.deck) - self.position

    def clone(self) -> GameState:
        other = GameState(self.num_players, self.ruleset, self.deck, self.first, deal=False)
        other.position = self.position
        other.market = self.market.copy()
        other.lines = [line.copy() for line in self.lines]
        other.hands = [hand.copy() for hand in self.hands]
        other.piles = [pile.copy() for pile in self.piles]
        other.tokens = [tokens.copy() for tokens in self.tokens]
        other.jackpots = [pile.copy() for pile in self.jackpots]
        other.out = self.out.copy()
        other.round = self.round
        other.turn_index = self.turn_index
        other.current_player = self.current_player
        other.is_over = self.is_over
        other.phase = self.phase
        other.took, other.played, other.closed = self.took, self.played, self.closed
        other.final_pass = self.final_pass
        other.final_index = self.final_index
        other.passed = self.passed.copy()
        other.history = self.history.copy()
        other._legal = self._legal  # never mutated in place: replaced at every decision
        return other

    # ------------------------------------------------------------ legal actions
    # Legal actions are computed once, when a decision is reached, and kept in ``_legal``: a
    # list the engine replaces and never changes in place. Each line carries tables that say
    # which cards fit it and which take actions a market card offers (see line.py).
    def _recompute_legal(self) -> None:
        """Legal actions from the phase alone (for a state rebuilt from an observation)."""
        phase, seat = self.phase, self.current_player
        if phase == TAKE:
            self._legal = self._take_actions(seat)
        elif phase in (PLAY, FINAL):
            self._legal = [*self._plays(seat), A.PASS_ACTION]
        elif phase == CLOSE:
            self._legal = _CLOSE_OR_PASS
        elif phase == TURN:
            self._legal = self._free_order_actions(seat)
        else:
            self._legal = []

    def _plays(self, seat: int) -> list[str]:
        fit_table = self.lines[seat].fit_table
        return [_PLAY_ACTIONS[card] for card in self.hands[seat] if fit_table[card]]

    def _take_actions(self, seat: int) -> list[str]:
        choices = self.lines[seat].take_table[len(self.hands[seat]) < 2]
        legal: list[str] = []
        for card in self.market:
            legal += choices[card]
        return legal

    def _free_order_actions(self, seat: int) -> list[str]:
        legal = [] if self.took else self._take_actions(seat)
        if not self.played:
            legal.extend(self._plays(seat))
        if not self.closed and self.lines[seat].cards:
            legal.append(A.CLOSE_ACTION)
        if self.took:
            legal.append(A.PASS_ACTION)
        return legal

    # ------------------------------------------------------------------ moves
    # The rules of a line (what fits, placing, closing) are Line's; these apply them to a seat.
    def _take(self, seat: int, card: int, destination: int) -> None:
        """Market card to the hand, onto the line, or (a forced close) onto a new line."""
        self.market.remove(card)
        if destination == _TO_HAND:
            self.hands[seat].append(card)
            return
        if destination == _TO_NEW_LINE:
            self._close_line(seat)
        self._place(seat, self.lines[seat], card)

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        self._place(seat, self.lines[seat], card)

    def _place(self, seat: int, line: Line, card: int) -> None:
        """Put a card that fits on the seat's line; a third card of a colour wins its jackpot."""
        colour = line.add(card)
        if colour >= 0:
            jackpot = self.jackpots[colour]
            if jackpot:
                self.piles[seat].extend(jackpot)
                jackpot.clear()

    def _close_line(self, seat: int) -> None:
        """Close the seat's line (Line.close): the Line object is emptied in place."""
        self.lines[seat].close(self.tokens[seat], self.out, self.piles[seat])

    def _apply_free_order(self, seat: int, kind: int, card: int, destination: int) -> None:
        if kind == A.PASS:
            self._end_turn()
            return
        if kind == A.TAKE:
            self._take(seat, card, destination)
            self.took = True
        elif kind == A.PLAY:
            self._play(seat, card)
            self.played = True
        else:
            self._close_line(seat)
            self.closed = True
        legal = self._free_order_actions(seat)
        if legal == [A.PASS_ACTION]:
            self._end_turn()
        else:
            self._legal = legal

    # ------------------------------------------------------------- the flow
    def _end_turn(self) -> None:
        """The next seat's turn; at the end of a round the leftovers go to the jackpots and
        the next market is dealt, or the final plays begin when the deck runs short."""
        n = self.num_players
        turn_index = self.turn_index + 1
        if turn_index == n:
            self._discard_to_jackpots(self.market)
            position = self.position
            size = n + 2
            if len(self.deck) - position < size:
                # The first player of the last round starts the final plays, so it stays.
                self.market = []
                self._end_game()
                return
            self.round += 1
            self.first = (self.first + 1) % n
            self.market = self.deck[position : position + size]
            self.position = position + size
            turn_index = 0
        self.turn_index = turn_index
        self._begin_turn((self.first + turn_index) % n)

    def _begin_turn(self, seat: int) -> None:
        self.current_player = seat
        if self.bga:
            self.took = self.played = self.closed = False
            self.phase = TURN
            self._legal = self._free_order_actions(seat)
            return
        # _take_actions, inlined: this runs once per turn.
        self.phase = TAKE
        choices = self.lines[seat].take_table[len(self.hands[seat]) < 2]
        legal: list[str] = []
        for card in self.market:
            legal += choices[card]
        self._legal = legal

    def _start_round(self) -> None:
        size = self.num_players + 2
        self.market = self.deck[self.position : self.position + size]
        self.position += size
        self.turn_index = 0
        self._begin_turn(self.first)

    def _discard_to_jackpots(self, cards: list[int]) -> None:
        jackpots = self.jackpots
        for card in cards:
            if card > 100:
                self.out.append(card)
            else:
                jackpots[COLOUR_INDEX[card]].append(card)

    def _end_game(self) -> None:
        self._discard_to_jackpots(self.deck[self.position :])
        self.position = len(self.deck)
        self.final_pass = 0
        self.final_index = 0
        self._next_final_play()

    def _next_final_play(self) -> None:
        """Find the next seat that may play in the final plays; skip those who cannot."""
        n = self.num_players
        while self.final_pass < 2:
            while self.final_index < n:
                seat = (self.first + self.final_index) % n
                if not self.passed[seat]:
                    plays = self._plays(seat)
                    if plays:
                        plays.append(A.PASS_ACTION)
                        self.current_player = seat
                        self.phase = FINAL
                        self._legal = plays
                        return
                self.final_index += 1
            self.final_pass += 1
            self.final_index = 0
        for seat in range(n):
            self._close_line(seat)
        self.phase = OVER
        self.current_player = -1
        self.is_over = True
        self._legal = []
