"""``lineit rules`` prints docs/rules.md from the package itself, and the page's figures are the
engine's: if a constant of the engine changes, this page must change with it."""

from __future__ import annotations

import os
import random
import re
import tomllib
from collections import Counter
from importlib import resources

import pytest
from cli_helpers import REPOSITORY

from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import resolve_bot
from lineit.engine import (
    BET_CARDS,
    BET_VALUE,
    COLOURS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUMBER_CARDS,
    RULES_VERSION,
    RULESETS,
    Line,
    colour_of,
    new_game,
    rounds_in_game,
)
from lineit.engine.cards import CARD_COUNT, JACKPOT_SYMBOLS
from lineit.engine.line import DISCARDED_ON_CLOSE

DOC = REPOSITORY / "docs" / "rules.md"
TEXT = DOC.read_text(encoding="utf-8")
WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}


# ------------------------------------------------------------------ the command and the resource
def test_lineit_rules_prints_docs_rules_md_exactly(lineit):
    outcome = lineit("rules")
    assert outcome.status == 0 and outcome.err == ""
    assert outcome.out == TEXT


def test_the_rules_are_a_resource_of_the_package_linked_to_the_doc():
    resource = resources.files("lineit").joinpath("rules.md")
    assert resource.is_file()
    assert resource.read_text(encoding="utf-8") == TEXT
    # One text: lineit/rules.md is a link to the doc (a build copies its content into the wheel).
    assert os.readlink(REPOSITORY / "lineit" / "rules.md") == "../docs/rules.md"
    for pyproject in ("pyproject.toml", "kit/pyproject.toml"):
        data = tomllib.loads((REPOSITORY / pyproject).read_text())["tool"]["setuptools"]["package-data"]
        assert "*.md" in data.get("*", []) + data.get("lineit", []), pyproject


def test_the_summary_gives_the_version_the_rulesets_and_where_the_rules_are(lineit):
    outcome = lineit("rules", "--summary")
    assert outcome.status == 0
    assert f"Line-it rules version {RULES_VERSION}" in outcome.out
    for ruleset in RULESETS:
        assert f"\n  {ruleset} " in outcome.out
    assert "lineit rules" in outcome.out and "docs/rules.md" in outcome.out
    assert "../" not in outcome.out


def test_the_page_points_at_nothing_outside_the_repository():
    assert "shared/" not in TEXT and "../" not in TEXT
    paths = [p for p in re.findall(r"`([^`\s]+)`", TEXT) if p.startswith(("lineit/", "docs/", "tests/"))]
    assert len(paths) > 10
    for path in paths:
        assert (REPOSITORY / path).exists(), path


# --------------------------------------------------------------- the page's figures, the engine's
def test_the_version_players_and_cards_are_the_engines():
    assert f"This is rules version **{RULES_VERSION}**" in TEXT
    assert f"| Players | {MIN_PLAYERS} to {MAX_PLAYERS} |" in TEXT
    assert f"card game for {MIN_PLAYERS} to {MAX_PLAYERS} players" in TEXT
    assert len(NUMBER_CARDS) + len(BET_CARDS) == CARD_COUNT
    assert f"| Cards | {CARD_COUNT}: {len(NUMBER_CARDS)} number cards and {len(BET_CARDS)} bet cards" in TEXT
    assert f"All {CARD_COUNT} cards are shuffled" in TEXT
    low, high = min(NUMBER_CARDS), max(NUMBER_CARDS)
    assert f"**{len(NUMBER_CARDS)} number cards**, numbered {low} to {high}, one of each" in TEXT
    assert f"the first {DISCARDED_ON_CLOSE} number cards are discarded" in TEXT
    assert f"**{WORDS[DISCARDED_ON_CLOSE].capitalize()} number cards are discarded**" in TEXT


def test_the_colour_table_is_the_engines():
    rows = re.findall(r"^  \| (\d) \| (\w+) \| (\w+) \|$", TEXT, re.MULTILINE)
    assert len(rows) == len(COLOURS) == len(JACKPOT_SYMBOLS)
    table = {int(remainder): (colour, symbol) for remainder, colour, symbol in rows}
    for number in NUMBER_CARDS:
        colour, symbol = table[number % 4]
        assert colour_of(number) == colour
        assert JACKPOT_SYMBOLS[COLOURS.index(colour)] == symbol
    per_colour = Counter(colour_of(number) for number in NUMBER_CARDS)
    assert set(per_colour.values()) == {len(NUMBER_CARDS) // len(COLOURS)}
    assert f"{len(NUMBER_CARDS) // len(COLOURS)} cards of each colour" in TEXT


def test_the_bet_cards_and_tokens_are_the_engines():
    values = Counter(BET_VALUE[card] for card in BET_CARDS)
    listed = ", ".join(f"{WORDS[count]} of value {value}" for value, count in sorted(values.items()))
    assert f"**{len(BET_CARDS)} bet cards**: {listed}." in TEXT
    tokens = [f"+{value}" for value in sorted(values)] + [f"-{value}" for value in sorted(values)]
    assert f"**Bet tokens** of {', '.join(tokens[:-1])} and {tokens[-1]}." in TEXT


def test_the_table_sizes_and_rounds_are_the_engines_and_what_it_plays():
    rows = re.findall(r"^\| (\d) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", TEXT, re.MULTILINE)
    assert [int(row[0]) for row in rows] == list(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    for players, market, rounds, dealt, left in ((int(x) for x in row) for row in rows):
        assert market == players + 2
        assert rounds == rounds_in_game(players) and dealt == rounds * market and left == CARD_COUNT - dealt
        assert left < market  # the draw pile cannot fill one more market
        # ...and a game really lasts that many rounds, each player taking one card a round.
        state = new_game(players, seed=players)
        chooser = random.Random(players)
        takes = Counter()
        while not state.is_over:
            action = chooser.choice(state.legal_actions())
            if action.startswith("take"):
                takes[state.current_player] += 1
            state.apply(action)
        assert state.round + 1 == rounds
        assert set(takes.values()) == {rounds}


def test_a_hand_holds_at_most_two_cards_and_the_third_of_a_colour_wins_the_jackpot():
    assert "| Hand | at most 2 cards |" in TEXT and "A player's **hand** holds at most 2 cards" in TEXT
    largest = 0
    for seed in range(5):
        state = new_game(3, seed=seed)
        chooser = random.Random(seed)
        while not state.is_over:
            state.apply(chooser.choice(state.legal_actions()))
            largest = max(largest, *(len(hand) for hand in state.hands))
    assert largest == 2
    assert "**third card of its colour in that\nline**" in TEXT
    red = [number for number in NUMBER_CARDS if colour_of(number) == "red"][:4]
    line = Line()
    assert [line.add(card) for card in red] == [-1, -1, COLOURS.index("red"), -1]  # the third only


@pytest.mark.parametrize("value", sorted({BET_VALUE[card] for card in BET_CARDS}))
def test_a_bet_settles_as_the_page_says(value):
    assert "**+X when at least X number cards follow the bet\n   card, otherwise -X**" in TEXT
    bet = next(card for card in BET_CARDS if BET_VALUE[card] == value)
    for after in range(value + 2):
        line = Line.from_cards([bet, *range(10, 10 + after)])
        assert line.bet_token() == (value if after >= value else -value)


@pytest.mark.parametrize("players", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_every_line_open_at_the_end_is_closed_and_its_bet_settled_like_any_close(players):
    settled_open_bets = 0
    for seed in range(40):
        state = new_game(players, RULESETS[seed % len(RULESETS)], seed=seed)
        chooser = random.Random(seed)
        while True:
            before = state.clone()
            actor = state.current_player
            state.apply(chooser.choice(state.legal_actions()))
            if state.is_over:
                break
        for seat in range(players):
            assert state.lines[seat].cards == []
            if seat == actor:
                continue  # its last action changed its line: the others' are as they were
            line = before.lines[seat]
            token = [line.bet_token()] if line.bet else []
            assert state.tokens[seat] == before.tokens[seat] + token
            assert len(state.piles[seat]) == len(before.piles[seat]) + max(0, line.numbers - DISCARDED_ON_CLOSE)
            settled_open_bets += bool(line.bet)
    assert settled_open_bets > 0  # the case the page spells out did happen


def test_the_rulesets_are_the_engines():
    section = TEXT.split("### Two rulesets", 1)[1].split("\n### ", 1)[0]
    assert re.findall(r"^- \*\*`(\w+)`\*\*", section, re.MULTILINE) == list(RULESETS)


def test_the_rulings_keep_their_numbers():
    assert re.findall(r"^\*\*R(\d+)\. ", TEXT, re.MULTILINE) == [str(n) for n in range(1, 16)]


def test_r14_every_game_of_a_match_starts_with_seat_0():
    random_bot = resolve_bot("random")
    result = run_match(MatchSpec(num_players=3, games=6, seed=8), [InProcessPlayer(random_bot) for _ in range(3)])
    assert [game.replay["first_player"] for game in result.games] == [0] * 6
    assert all(game.replay["actions"][0][0] == 0 for game in result.games)
