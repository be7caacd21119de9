"""The state of one game of Line-it, in the OpenSpiel manner.

``new_game`` deals; then, until ``is_over``, the ``current_player`` picks one of
``legal_actions()`` and the caller passes it to ``apply``. Anything else raises
``IllegalAction`` and changes nothing. Decisions are atomic (take, then play or pass, then
close or pass); a decision whose only choice would be ``pass`` is skipped, so a player who
must decide always has a real choice.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from . import actions as A
from .cards import ALL_CARDS, BET_VALUE, CARD_COUNT, COLOUR_INDEX
from .errors import IllegalAction, InvalidSetup
from .line import Line
from .rules import BGA, MAX_PLAYERS, MIN_PLAYERS, RULESETS, STANDARD

# Phases. ``TURN`` is the bga ruleset's free order; ``FINAL`` the end-game final plays.
TAKE: Final = 0
PLAY: Final = 1
CLOSE: Final = 2
TURN: Final = 3
FINAL: Final = 4
OVER: Final = 5
PHASE_NAMES: Final = ("take", "play", "close", "turn", "final", "over")

_CLOSE_OR_PASS: Final = (A.CLOSE_ACTION, A.PASS_ACTION)
_SORTED_CARDS: Final = tuple(sorted(ALL_CARDS))


def rounds_in_game(num_players: int) -> int:
    """Rounds a game lasts: it ends when fewer than players + 2 cards are left to deal."""
    return CARD_COUNT // (num_players + 2)


def new_game(
    num_players: int,
    ruleset: str = STANDARD,
    *,
    seed: int | None = None,
    deck: Sequence[int] | None = None,
    first_player: int = 0,
) -> GameState:
    """A new game, dealt from ``deck`` (top card first) or from a deck shuffled by ``seed``."""
    if not isinstance(num_players, int) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidSetup(f"Line-it is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {num_players!r}")
    if ruleset not in RULESETS:
        raise InvalidSetup(f"unknown ruleset {ruleset!r}; choose one of {', '.join(RULESETS)}")
    if not isinstance(first_player, int) or not 0 <= first_player < num_players:
        raise InvalidSetup(f"first player must be a seat from 0 to {num_players - 1}, not {first_player!r}")
    if deck is None:
        if seed is None:
            raise InvalidSetup("give a seed or an explicit deck order")
        order = list(ALL_CARDS)
        random.Random(seed).shuffle(order)
    else:
        order = list(deck)
        if len(order) != CARD_COUNT or sorted(order) != list(_SORTED_CARDS):
            raise InvalidSetup(f"a deck must hold each of the {CARD_COUNT} cards 1..{CARD_COUNT} exactly once")
    return GameState(num_players, ruleset, order, first_player)


class GameState:
    """Everything about one game. Mutated in place by ``apply``; ``clone`` copies it."""

    __slots__ = (
        "_legal",
        "_marks",
        "closed",
        "current",
        "deck",
        "final_index",
        "final_pass",
        "first",
        "hands",
        "history",
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

    def __init__(self, num_players: int, ruleset: str, deck: list[int], first_player: int) -> None:
        self.num_players = num_players
        self.ruleset = ruleset
        self.deck = deck  # the initial order, never mutated: ``position`` is the next card to deal
        self.position = 0
        self.market: list[int] = []
        self.lines = [Line() for _ in range(num_players)]
        self.hands: list[list[int]] = [[] for _ in range(num_players)]
        self.piles: list[list[int]] = [[] for _ in range(num_players)]
        self.tokens: list[list[int]] = [[] for _ in range(num_players)]
        self.jackpots: list[list[int]] = [[], [], [], []]
        self.out: list[int] = []  # cards that left the game: discards and settled bets
        self.first = first_player
        self.round = 0
        self.turn_index = 0
        self.current = first_player
        self.phase = TAKE
        self.took = self.played = self.closed = False
        self.final_pass = 0
        self.final_index = 0
        self.passed = [False] * num_players
        self.history: list[tuple[int, str]] = []
        self._marks = [0] * num_players  # history length after each seat's last action
        self._legal: list[str] | None = None
        self._start_round()

    # ----------------------------------------------------------------- public API
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def current_player(self) -> int:
        """The seat that must decide now (-1 once the game is over)."""
        return -1 if self.phase == OVER else self.current

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def legal_actions(self) -> list[str]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal.copy()

    def apply(self, action: str) -> None:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if action not in legal:
            from .explain import explain_illegal

            raise IllegalAction(explain_illegal(self, action))
        info = A.ACTIONS[action]
        seat = self.current
        history = self.history
        history.append((seat, action))
        self._marks[seat] = len(history)
        self._legal = None
        phase = self.phase
        kind = info.kind
        if phase == TAKE:
            self._take(seat, info.card, info.destination)
            if self._hand_card_fits(seat):
                self.phase = PLAY
            elif self.lines[seat].cards:
                self.phase = CLOSE
            else:
                self._end_turn()
        elif phase == PLAY:
            if kind == A.PLAY:
                self._play(seat, info.card)
                self.phase = CLOSE
            elif self.lines[seat].cards:
                self.phase = CLOSE
            else:
                self._end_turn()
        elif phase == CLOSE:
            if kind == A.CLOSE:
                self._close_line(seat)
            self._end_turn()
        elif phase == TURN:
            self._apply_free_order(seat, kind, info)
        else:  # FINAL
            if kind == A.PLAY:
                self._play(seat, info.card)
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

    def observation(self, seat: int) -> dict[str, object]:
        from .observation import build_observation

        return build_observation(self, seat)

    def recent_actions(self, seat: int) -> list[tuple[int, str]]:
        """The actions taken since ``seat`` last acted (all of them before its first action)."""
        return self.history[self._marks[seat] :]

    def draw_pile_size(self) -> int:
        return len(self.deck) - self.position

    def clone(self) -> GameState:
        other = GameState.__new__(GameState)
        other.num_players = self.num_players
        other.ruleset = self.ruleset
        other.deck = self.deck
        other.position = self.position
        other.market = self.market.copy()
        other.lines = [line.copy() for line in self.lines]
        other.hands = [hand.copy() for hand in self.hands]
        other.piles = [pile.copy() for pile in self.piles]
        other.tokens = [tokens.copy() for tokens in self.tokens]
        other.jackpots = [pile.copy() for pile in self.jackpots]
        other.out = self.out.copy()
        other.first = self.first
        other.round = self.round
        other.turn_index = self.turn_index
        other.current = self.current
        other.phase = self.phase
        other.took, other.played, other.closed = self.took, self.played, self.closed
        other.final_pass = self.final_pass
        other.final_index = self.final_index
        other.passed = self.passed.copy()
        other.history = self.history.copy()
        other._marks = self._marks.copy()
        other._legal = self._legal
        return other

    # ------------------------------------------------------------ legal actions
    def _compute_legal(self) -> list[str]:
        phase = self.phase
        seat = self.current
        if phase == TAKE:
            return self._take_actions(seat)
        if phase == CLOSE:
            return list(_CLOSE_OR_PASS)
        if phase in (PLAY, FINAL):
            line = self.lines[seat]
            plays = [A.PLAY_ACTIONS[card] for card in self.hands[seat] if line.fits(card)]
            plays.append(A.PASS_ACTION)
            return plays
        if phase == TURN:
            legal = [] if self.took else self._take_actions(seat)
            if not self.played:
                line = self.lines[seat]
                legal.extend(A.PLAY_ACTIONS[card] for card in self.hands[seat] if line.fits(card))
            if not self.closed and self.lines[seat].cards:
                legal.append(A.CLOSE_ACTION)
            if self.took:
                legal.append(A.PASS_ACTION)
            return legal
        return []

    def _take_actions(self, seat: int) -> list[str]:
        line = self.lines[seat]
        hand_room = len(self.hands[seat]) < 2
        numbers, last, direction, bet = line.numbers, line.last, line.direction, line.bet
        legal: list[str] = []
        append = legal.append
        for card in self.market:
            names = A.TAKE_ACTIONS[card]
            if card > 100:
                fits = not bet
            else:
                fits = numbers < 2 or (card > last if direction > 0 else card < last)
            if fits:
                append(names[0])
                if hand_room:
                    append(names[1])
            elif hand_room:
                append(names[1])
            else:
                append(names[2])
        return legal

    def _hand_card_fits(self, seat: int) -> bool:
        line = self.lines[seat]
        return any(line.fits(card) for card in self.hands[seat])

    # ------------------------------------------------------------------ moves
    def _take(self, seat: int, card: int, destination: int) -> None:
        self.market.remove(card)
        if destination == A.TO_HAND:
            self.hands[seat].append(card)
            return
        if destination == A.TO_NEW_LINE:
            self._close_line(seat)
        self._place(seat, card)

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        self._place(seat, card)

    def _place(self, seat: int, card: int) -> None:
        colour = self.lines[seat].add(card)
        if colour >= 0:
            jackpot = self.jackpots[colour]
            if jackpot:
                self.piles[seat].extend(jackpot)
                jackpot.clear()

    def _close_line(self, seat: int) -> None:
        line = self.lines[seat]
        if line.bet:
            value = BET_VALUE[line.bet]
            self.tokens[seat].append(value if line.after_bet >= value else -value)
            self.out.append(line.bet)
        numbers = [card for card in line.cards if card <= 100] if line.bet else line.cards
        self.out.extend(numbers[:3])
        self.piles[seat].extend(numbers[3:])
        self.lines[seat] = Line()

    def _apply_free_order(self, seat: int, kind: int, info: A.ActionInfo) -> None:
        if kind == A.PASS:
            self._end_turn()
            return
        if kind == A.TAKE:
            self._take(seat, info.card, info.destination)
            self.took = True
        elif kind == A.PLAY:
            self._play(seat, info.card)
            self.played = True
        else:
            self._close_line(seat)
            self.closed = True
        if self.took:
            can_play = not self.played and self._hand_card_fits(seat)
            can_close = not self.closed and bool(self.lines[seat].cards)
            if not can_play and not can_close:
                self._end_turn()

    # ------------------------------------------------------------- the flow
    def _begin_turn(self) -> None:
        self.phase = TURN if self.ruleset == BGA else TAKE
        self.took = self.played = self.closed = False

    def _end_turn(self) -> None:
        self.turn_index += 1
        if self.turn_index < self.num_players:
            self.current = (self.first + self.turn_index) % self.num_players
            self._begin_turn()
        else:
            self._end_round()

    def _start_round(self) -> None:
        size = self.num_players + 2
        self.market = self.deck[self.position : self.position + size]
        self.position += size
        self.turn_index = 0
        self.current = self.first
        self._begin_turn()

    def _end_round(self) -> None:
        self._discard_to_jackpots(self.market)
        self.market = []
        if len(self.deck) - self.position < self.num_players + 2:
            # The first player of the last round starts the final plays, so it stays.
            self._end_game()
            return
        self.round += 1
        self.first = (self.first + 1) % self.num_players
        self._start_round()

    def _discard_to_jackpots(self, cards: list[int]) -> None:
        for card in cards:
            if card > 100:
                self.out.append(card)
            else:
                self.jackpots[COLOUR_INDEX[card]].append(card)

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
                if not self.passed[seat] and self._hand_card_fits(seat):
                    self.current = seat
                    self.phase = FINAL
                    return
                self.final_index += 1
            self.final_pass += 1
            self.final_index = 0
        for seat in range(n):
            self._close_line(seat)
        self.phase = OVER
        self.current = -1


def check_seat(state: GameState, seat: object) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.num_players:
        raise IllegalAction(f"seat must be 0 to {state.num_players - 1}, not {seat!r}")
    return seat
