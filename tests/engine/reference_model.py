"""A second, independent reading of the rules, written from RULES.md and docs/rules.md only.

It is slow and plain on purpose: a generator that walks through a game in the order the rules
describe it, yields each decision as ``(seat, legal_actions)`` and receives the chosen action.
The engine is fast and event-driven; if both agree over thousands of random games, neither is
likely to carry the same mistake. It imports nothing from the engine.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field

BET_VALUES = {101: 3, 102: 3, 103: 4, 104: 4, 105: 5, 106: 5}

Decision = tuple[int, list[str]]
Game = Generator[Decision, str, None]


def colour(card: int) -> int:
    """0 red (n mod 4 = 1), 1 blue (2), 2 green (3), 3 yellow (0)."""
    return (card - 1) % 4


def numbers_of(line: list[int]) -> list[int]:
    return [card for card in line if card not in BET_VALUES]


def fits(line: list[int], card: int) -> bool:
    if card in BET_VALUES:
        return not any(c in BET_VALUES for c in line)
    numbers = numbers_of(line)
    if len(numbers) < 2:
        return True
    ascending = numbers[1] > numbers[0]
    return card > numbers[-1] if ascending else card < numbers[-1]


@dataclass
class Table:
    num_players: int
    ruleset: str
    draw: list[int]
    first: int = 0
    market: list[int] = field(default_factory=list)
    lines: list[list[int]] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)
    piles: list[int] = field(default_factory=list)
    tokens: list[list[int]] = field(default_factory=list)
    jackpots: list[list[int]] = field(default_factory=lambda: [[], [], [], []])
    rounds_played: int = 0

    def __post_init__(self) -> None:
        n = self.num_players
        self.lines = [[] for _ in range(n)]
        self.hands = [[] for _ in range(n)]
        self.piles = [0] * n
        self.tokens = [[] for _ in range(n)]

    # -------------------------------------------------------------- card moves
    def place(self, seat: int, card: int) -> None:
        line = self.lines[seat]
        line.append(card)
        if card not in BET_VALUES and sum(colour(c) == colour(card) for c in numbers_of(line)) == 3:
            self.piles[seat] += len(self.jackpots[colour(card)])
            self.jackpots[colour(card)] = []

    def close(self, seat: int) -> None:
        line = self.lines[seat]
        bets = [index for index, card in enumerate(line) if card in BET_VALUES]
        if bets:
            value = BET_VALUES[line[bets[0]]]
            after = len(numbers_of(line[bets[0] + 1 :]))
            self.tokens[seat].append(value if after >= value else -value)
        self.piles[seat] += max(0, len(numbers_of(line)) - 3)
        self.lines[seat] = []

    def to_jackpots(self, cards: list[int]) -> None:
        for card in cards:
            if card not in BET_VALUES:
                self.jackpots[colour(card)].append(card)

    # ----------------------------------------------------------- the decisions
    def take_choices(self, seat: int) -> list[str]:
        line, hand = self.lines[seat], self.hands[seat]
        choices = []
        for card in self.market:
            if fits(line, card):
                choices.append(f"take {card} line")
            if len(hand) < 2:
                choices.append(f"take {card} hand")
            elif not fits(line, card):
                choices.append(f"take {card} forced-close")
        return choices

    def play_choices(self, seat: int) -> list[str]:
        return [f"play {card}" for card in self.hands[seat] if fits(self.lines[seat], card)]

    def do(self, seat: int, action: str) -> None:
        words = action.split()
        if words[0] == "take":
            card = int(words[1])
            self.market.remove(card)
            if words[2] == "hand":
                self.hands[seat].append(card)
                return
            if words[2] == "forced-close":
                self.close(seat)
            self.place(seat, card)
        elif words[0] == "play":
            card = int(words[1])
            self.hands[seat].remove(card)
            self.place(seat, card)
        elif words[0] == "close":
            self.close(seat)


def standard_turn(table: Table, seat: int) -> Game:
    table.do(seat, (yield seat, table.take_choices(seat)))
    plays = table.play_choices(seat)
    if plays:  # R1: a decision whose only choice is "pass" is not asked
        table.do(seat, (yield seat, [*plays, "pass"]))
    if table.lines[seat]:
        table.do(seat, (yield seat, ["close", "pass"]))


def bga_turn(table: Table, seat: int) -> Game:
    took = played = closed = False
    while True:
        choices = [] if took else table.take_choices(seat)
        if not played:
            choices += table.play_choices(seat)
        if not closed and table.lines[seat]:
            choices.append("close")
        if took:
            if not choices:
                return  # R10: the turn ends by itself when only "pass" is left
            choices.append("pass")
        action = yield seat, choices
        if action == "pass":
            return
        table.do(seat, action)
        took = took or action.startswith("take")
        played = played or action.startswith("play")
        closed = closed or action == "close"


def play_table(table: Table) -> Game:
    n = table.num_players
    turn = standard_turn if table.ruleset == "standard" else bga_turn
    while True:
        table.market, table.draw = table.draw[: n + 2], table.draw[n + 2 :]
        for offset in range(n):
            yield from turn(table, (table.first + offset) % n)
        table.to_jackpots(table.market)
        table.market = []
        table.rounds_played += 1
        if len(table.draw) < n + 2:
            break
        table.first = (table.first + 1) % n
    table.to_jackpots(table.draw)
    table.draw = []
    passed = [False] * n
    for _ in range(2):
        for offset in range(n):
            seat = (table.first + offset) % n
            plays = table.play_choices(seat)
            if passed[seat] or not plays:
                continue
            action = yield seat, [*plays, "pass"]
            if action == "pass":
                passed[seat] = True
            else:
                table.do(seat, action)
    for seat in range(n):
        table.close(seat)


def scores(table: Table) -> list[int]:
    return [pile + sum(tokens) for pile, tokens in zip(table.piles, table.tokens)]
