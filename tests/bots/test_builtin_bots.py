"""The built-in bots: they play every table legally, simulate with the engine, and are as strong
as claimed.

No database: the bots are played through the referee with in-process players, as the league
and the platform's quick matches do.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BUILTIN_NAMES, resolve_bot
from lineit.botkit.summary import summarize
from lineit.builtin.versions import builtin_version_hash
from lineit.engine import ALL_CARDS, new_game

BUILTIN = Path(__file__).resolve().parents[2] / "lineit" / "builtin"
# The search bot thinks for half of move_seconds: 2 ms per decision keeps these tests short.
QUICK = Limits(move_seconds=0.004)


def load_module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"builtin_{name}_under_test", BUILTIN / f"{name}_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def players_for(*names: str) -> list[InProcessPlayer]:
    return [InProcessPlayer(resolve_bot(name)) for name in names]


def info(seat: int, num_players: int = 2, ruleset: str = "standard", move_seconds: float = 0.5) -> dict:
    return {
        "seat": seat,
        "num_players": num_players,
        "ruleset": ruleset,
        "game": 0,
        "games": 1,
        "players": [],
        "limits": {"move_seconds": move_seconds},
    }


# ----------------------------------------------------------------- every table, legally
@pytest.mark.parametrize("ruleset", ["standard", "bga"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("bot", BUILTIN_NAMES)
def test_bot_plays_complete_games_without_failing(bot: str, num_players: int, ruleset: str) -> None:
    # Given the bot in one seat and the random bot in the others, every seat in turn
    spec = MatchSpec(num_players=num_players, games=num_players, ruleset=ruleset, seed=11)
    names = [bot] + ["random"] * (num_players - 1)

    # When the match is refereed
    result = run_match(spec, players_for(*names), limits=QUICK)

    # Then every game is complete and nobody failed (an illegal move or an exception would
    # be a failure and a forfeit)
    assert len(result.games) == num_players
    assert result.failures == []
    assert all(game.forfeits == [] for game in result.games)
    assert all(len(game.scores) == num_players for game in result.games)


@pytest.mark.parametrize("ruleset", ["standard", "bga"])
def test_search_bot_fills_every_seat(ruleset: str) -> None:
    result = run_match(
        MatchSpec(num_players=3, games=3, ruleset=ruleset, seed=5), players_for(*["search"] * 3), limits=QUICK
    )
    assert result.failures == []


# ------------------------------------------------------------------- standing alone
@pytest.mark.parametrize("bot", BUILTIN_NAMES)
def test_bot_imports_only_the_standard_library_the_engine_and_other_builtins(bot: str) -> None:
    # What the sandbox provides: the standard library, the engine and the built-in bots' modules
    tree = ast.parse((BUILTIN / f"{bot}_bot.py").read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative imports tie the bot to the package"
            imported.add(node.module or "")
    allowed = {name for name in imported if name.split(".")[0] in sys.stdlib_module_names}
    allowed |= {name for name in imported if name == "lineit.engine" or name.startswith("lineit.engine.")}
    allowed |= {name for name in imported if (BUILTIN / f"{name.removeprefix('lineit.builtin.')}.py").is_file()}
    assert imported - allowed == set()
    assert any(isinstance(node, ast.ClassDef) and node.name == "Bot" for node in tree.body)


def test_search_and_heuristic_share_one_value_model_and_keep_no_rules_of_their_own() -> None:
    search, heuristic = load_module("search"), load_module("heuristic")
    # The model is the heuristic's, imported, not a copy
    assert search.position_value.__module__ == search.Context.__module__ == "lineit.builtin.heuristic_bot"
    # No hand-written rule of the game: actions are played by the engine (clone, apply)
    for module in (search, heuristic):
        source = Path(module.__file__).read_text()
        for copied_rule in ("close_points()", ".add(card)", "draw_count", "// (n + 2)", "_parse(", ".deck = "):
            assert copied_rule not in source, f"{module.__name__} plays a rule itself: {copied_rule}"


# ------------------------------------------------------------------ version hashes
def test_a_builtin_that_borrows_nothing_is_named_by_its_file_as_an_upload_is() -> None:
    for bot in ("random", "greedy", "heuristic"):
        path = BUILTIN / f"{bot}_bot.py"
        assert builtin_version_hash(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_change_to_the_heuristic_changes_the_search_bots_version(tmp_path: Path) -> None:
    # Given a copy of the built-in bots
    copy = tmp_path / "builtin"
    shutil.copytree(BUILTIN, copy, ignore=shutil.ignore_patterns("__pycache__"))
    search = copy / "search_bot.py"
    before = builtin_version_hash(search)
    assert before == builtin_version_hash(BUILTIN / "search_bot.py")
    assert before != hashlib.sha256(search.read_bytes()).hexdigest()
    # When a weight of the heuristic's model changes, or a bot it does not borrow from changes
    (copy / "random_bot.py").write_text((copy / "random_bot.py").read_text() + "# changed\n")
    unchanged = builtin_version_hash(search)
    heuristic = copy / "heuristic_bot.py"
    heuristic.write_text(heuristic.read_text().replace("HAND_FIT_VALUE = 0.7", "HAND_FIT_VALUE = 0.8"))
    # Then only the borrowed module's change gives the search bot a new version
    assert unchanged == before
    assert builtin_version_hash(search) != before


# ------------------------------------------------------------------ greedy: jackpots
def scripted_deal(leftovers: tuple[int, int]) -> list[int]:
    """Round 1 leaves ``leftovers`` in the jackpots; by round 3 seat 0's line is 1, 5 (two
    reds) and the market offers 9 (red, the third) and 6 (blue, the closer card)."""
    top = [1, 100, *leftovers, 5, 99, 30, 31, 9, 6, 98, 97]
    return top + [card for card in ALL_CARDS if card not in top]


@pytest.mark.parametrize(
    ("leftovers", "expected"),
    [
        ((41, 45), "take 9 line"),  # red jackpot of two cards: the third red wins it
        ((42, 46), "take 6 line"),  # the red jackpot is empty: the smaller gap wins
    ],
)
def test_greedy_takes_the_third_card_of_a_colour_when_its_jackpot_pays(
    leftovers: tuple[int, int], expected: str
) -> None:
    state = new_game(2, "standard", deck=scripted_deal(leftovers))
    for action in ["take 1 line", "pass", "take 100 line", "pass", "take 99 line", "pass", "take 5 line", "pass"]:
        state.apply(action)
    observation = state.observation(0)
    assert observation["players"][0]["colour_counts"][0] == 2
    assert {"take 9 line", "take 6 line"} <= set(observation["legal_actions"])

    bot = load_module("greedy").Bot()
    bot.start_game(info(0))
    assert bot.act(observation) == expected


# -------------------------------------------------------------------------- strength
def test_heuristic_beats_random_over_duplicate_deals() -> None:
    result = run_match(MatchSpec(num_players=2, games=60, seed=2024), players_for("heuristic", "random"))
    heuristic, random_bot = summarize(result)
    # It wins nearly every game (99.9% over 2000 in the league); 60 games leave a wide margin.
    assert heuristic.win_rate - heuristic.win_interval > 0.75
    assert heuristic.mean_score - heuristic.score_interval > random_bot.mean_score + random_bot.score_interval


def test_heuristic_beats_greedy_over_duplicate_deals() -> None:
    result = run_match(MatchSpec(num_players=2, games=60, ruleset="bga", seed=7), players_for("heuristic", "greedy"))
    heuristic, greedy = summarize(result)
    assert heuristic.win_rate - heuristic.win_interval > 0.6
    assert heuristic.mean_score > greedy.mean_score + 10


# ---------------------------------------------------------------------- determinism
@pytest.mark.parametrize("bot", ["random", "greedy", "heuristic"])
def test_bot_replays_the_same_match_the_same_way(bot: str) -> None:
    def actions() -> list[list]:
        spec = MatchSpec(num_players=3, games=3, ruleset="bga", seed=99)
        result = run_match(spec, players_for(bot, bot, "random"))
        return [game.replay["actions"] for game in result.games]

    assert actions() == actions()


def test_search_bot_with_a_sample_cap_is_reproducible() -> None:
    module = load_module("search")

    class CappedSearch(module.Bot):
        budget_seconds = 10.0  # the cap, not the clock, ends every search
        max_samples = 3

    def play(seed: int) -> list[str]:
        state = new_game(2, "bga", seed=seed)
        bots = [CappedSearch(), CappedSearch()]
        for seat, bot in enumerate(bots):
            bot.start_game(info(seat, ruleset="bga"))
        taken = []
        for _ in range(40):
            action = bots[state.current_player].act(state.observation(state.current_player))
            taken.append(action)
            state.apply(action)
        return taken

    assert play(3) == play(3)


# ------------------------------------------------------------------- search budget
def test_search_budget_is_a_share_of_the_move_allowance_capped() -> None:
    module = load_module("search")
    bot = module.Bot()
    bot.start_game(info(0, move_seconds=0.01))
    assert bot.budget == pytest.approx(0.005)
    bot.start_game(info(0, move_seconds=5.0))
    assert bot.budget == pytest.approx(module.MAX_BUDGET_SECONDS)

    class League(module.Bot):
        budget_seconds = 0.002

    league = League()
    league.start_game(info(0, move_seconds=5.0))
    assert league.budget == pytest.approx(0.002)


def test_search_answers_a_single_legal_action_without_searching() -> None:
    module = load_module("search")
    bot = module.Bot()
    bot.start_game(info(0))
    observation = new_game(2, "standard", seed=1).observation(0)
    observation["legal_actions"] = observation["legal_actions"][-1:]

    assert bot.act(observation) == observation["legal_actions"][0]
    assert bot.samples == 0


def test_search_samples_worlds_when_the_choice_is_open() -> None:
    module = load_module("search")
    module.CANDIDATE_MARGIN = 1000.0  # every action is a candidate: the search must run
    bot = module.Bot()
    bot.start_game(info(0, move_seconds=0.02))
    observation = new_game(2, "standard", seed=4).observation(0)

    action = bot.act(observation)

    assert action in observation["legal_actions"]
    assert bot.samples >= 1
