"""A game position and what an action did, as terminal text, with or without colour.

Every card names its colour by a letter (``37r``), so the text reads the same without colour;
on a terminal the cards are coloured too.
"""

from __future__ import annotations

from collections.abc import Sequence

from lineit.engine import COLOURS, GameState, card_label, colour_of, is_bet

ANSI = {"red": "31", "blue": "34", "green": "32", "yellow": "33", "bet": "1;35", "bold": "1", "dim": "2"}
CARD_LEGEND = (
    "Cards: 1-100 are number cards, coloured by number (r red, b blue, g green, y yellow); "
    "B3, B4, B5 are bet cards. * marks the player to decide."
)


class Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def paint(self, text: str, code: str) -> str:
        return f"\x1b[{ANSI[code]}m{text}\x1b[0m" if self.colour else text

    def card(self, card: int, *, letter: bool = True) -> str:
        if is_bet(card):
            return self.paint(card_label(card), "bet")
        colour = colour_of(card) or ""
        return self.paint(f"{card}{colour[:1] if letter else ''}", colour)

    def cards(self, cards: Sequence[int], empty: str = "-", *, letter: bool = True) -> str:
        return " ".join(self.card(card, letter=letter) for card in cards) if cards else empty

    def bold(self, text: str) -> str:
        return self.paint(text, "bold")

    def dim(self, text: str) -> str:
        return self.paint(text, "dim")


def ordinal(rank: int) -> str:
    return f"{rank}{'th' if 10 <= rank % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(rank % 10, 'th')}"


def signed(values: Sequence[int]) -> str:
    return " ".join(f"{value:+d}" for value in values)


def player_label(names: Sequence[str], seat: int, you: int | None, style: Style) -> str:
    label = f"{names[seat]} (seat {seat}{', you' if seat == you else ''})"
    return style.bold(label) if seat == you else label


def line_text(state: GameState, seat: int, style: Style) -> str:
    line = state.lines[seat]
    if not line.cards:
        return "(empty)"
    direction = {1: "up", -1: "down", 0: "no direction yet"}[line.direction]
    parts = [f"{direction}:", style.cards(line.cards)]
    if line.bet:
        parts.append(f"  {bet_text(line.bet, line.after_bet)}")
    counts = [f"{colour[:1]}{count}" for colour, count in zip(COLOURS, line.colours) if count]
    if counts:
        parts.append(f"  colours {' '.join(counts)}")
    return " ".join(parts)


def bet_text(bet: int, after_bet: int) -> str:
    """A line's bet in words: what it still needs, or that it is safe (docs/rules.md: at the
    close, at least X number cards after a bet card of value X give +X, fewer give -X)."""
    value = int(card_label(bet)[1:])
    cards = plural(after_bet, "number card")
    if after_bet >= value:
        return f"bet {value}: safe, +{value} at the close ({cards} after it, {value} needed)"
    needs = plural(value - after_bet, "more number card")
    return f"bet {value}: needs {needs} after it, or -{value} at the close ({after_bet} of {value} so far)"


def score_text(state: GameState, seat: int) -> str:
    pile, tokens = len(state.piles[seat]), state.tokens[seat]
    score = pile + sum(tokens)
    return f"score {score} ({pile} cards{', tokens ' + signed(tokens) if tokens else ''})"


def position(state: GameState, names: Sequence[str], style: Style, you: int | None = None) -> list[str]:
    """The whole public picture: market, jackpots, draw pile, and each player's line, hand, score."""
    piles = [
        f"{colour} ({len(pile)}): {style.cards(pile, '-', letter=False)}"
        for colour, pile in zip(COLOURS, state.jackpots)
    ]
    lines = [f"    market    {style.cards(state.market, '(empty)')}"]
    if sum(len(pile) for pile in state.jackpots) <= 16:
        lines.append(f"    jackpots  {'   '.join(piles)}")
    else:
        lines += [f"    jackpot   {pile}" for pile in piles]
    lines.append(f"    draw pile {state.draw_pile_size()} cards")
    for seat in range(state.num_players):
        marker = "*" if seat == state.current_player else " "
        lines.append(f"  {marker} {player_label(names, seat, you, style)}  {score_text(state, seat)}")
        lines.append(f"        line  {line_text(state, seat, style)}")
        lines.append(f"        hand  {style.cards(state.hands[seat], '(empty)')}")
    return lines


def closed_line(before: GameState, seat: int, action: str, after: GameState) -> list[int] | None:
    """The cards of ``seat``'s line when this action closed it, or None if it did not close.

    A card taken onto the line or played from the hand joins the line before the end of the game
    closes it; a forced close closes the old line, and the taken card starts the new one."""
    old = before.lines[seat].cards
    if seat == before.current_player and (action.startswith("play ") or action.endswith(" line")):
        old = [*old, int(action.split()[1])]
    new = after.lines[seat].cards
    return old if old and new[: len(old)] != old else None


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def effects(before: GameState, action: str, after: GameState, names: Sequence[str], style: Style) -> list[str]:
    """What an action did beyond its own words: jackpots won, lines closed and bets settled, and
    the end of a round or of the game (which the last action of a round sets off)."""
    seat = before.current_player
    found: list[str] = []
    won = 0
    for colour, old, new in zip(COLOURS, before.jackpots, after.jackpots):
        taken = [card for card in old if card not in new]
        if taken:
            won += len(taken)
            found.append(f"{names[seat]} wins the {colour} jackpot: {style.cards(taken)} ({len(taken)} points)")
    for other in range(before.num_players):
        closed = closed_line(before, other, action, after)
        if closed is None:
            continue
        numbers = [card for card in closed if not is_bet(card)]
        scored = max(0, len(numbers) - 3)
        text = f"{names[other]}'s line closes: {plural(len(numbers), 'number card')}, {scored} scored"
        tokens = after.tokens[other][len(before.tokens[other]) :]
        if tokens:
            text += f", bet token {signed(tokens)}"
        found.append(text)
    if after.round != before.round or (
        after.phase_name in ("final", "over") and before.phase_name not in ("final", "over")
    ):
        found.extend(round_end(before, action, style))
    if after.draw_pile_size() == 0 and before.draw_pile_size() > 0 and after.phase_name in ("final", "over"):
        rest = before.deck[before.position :]
        found.append(
            f"the game ends: the {len(rest)} cards left in the draw pile go to the jackpots ({style.cards(rest)})"
        )
    return found


def round_end(before: GameState, action: str, style: Style) -> list[str]:
    taken = int(action.split()[1]) if action.startswith("take ") else 0
    leftovers = [card for card in before.market if card != taken]
    numbers = [card for card in leftovers if not is_bet(card)]
    bets = [card for card in leftovers if is_bet(card)]
    words = []
    if numbers:
        words.append(f"{style.cards(numbers)} {'goes' if len(numbers) == 1 else 'go'} to the jackpots")
    if bets:
        words.append(f"{style.cards(bets)} {'leaves' if len(bets) == 1 else 'leave'} the game")
    return [f"end of round {before.round + 1}: " + ", ".join(words)] if words else []


def result_lines(
    scores: Sequence[int], ranks: Sequence[int], forfeits: Sequence[int], names: Sequence[str]
) -> list[str]:
    order = sorted(range(len(scores)), key=lambda seat: (ranks[seat], seat))
    lines = []
    for seat in order:
        note = "  (forfeited: a bot failure, see below)" if seat in forfeits else ""
        lines.append(f"    {ordinal(ranks[seat]):>4}  {names[seat]} (seat {seat})  {scores[seat]} points{note}")
    return lines
