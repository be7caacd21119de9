"""Tests for this bot: it plays legal games, without a single failure, against the built-in bots.

Run them from this folder with either of:

    python -m pytest
    python test_bot.py

The games are played by the kit's own referee, the bot in the same sandbox and with the same
limits as on the server (docs/bot-interface.md, "What the sandbox allows"). Where no sandbox
works on this machine (`lineit doctor` says why) they are played in this process instead, with a
warning: the bot's code is yours, so that is safe, but the sandbox's limits are not applied.
Add your own tests below: `lineit show REPLAY --decision N --observation` prints the exact
observation of a failing decision, to paste into a test like the last one here.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from lineit.botkit.interface import load_policy
from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import MatchResult, run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource, builtin_source
from lineit.engine import new_game, verify_replay

HERE = Path(__file__).resolve().parent  # the bot's folder: bot.py and its siblings, as uploaded
BOT = BotSource(name=HERE.name, path=HERE)


def play(opponents: list[str], *, games: int, ruleset: str = "standard", seed: int = 1) -> MatchResult:
    """A match of this bot against built-in bots, with duplicate deals (every deal played once
    per seat rotation), sandboxed when a sandbox works here."""
    spec = MatchSpec(num_players=1 + len(opponents), games=games, ruleset=ruleset, seed=seed)
    sources = [BOT, *(builtin_source(name) for name in opponents)]
    limits = Limits()  # the server's defaults
    try:
        from lineit.sandbox import SandboxUnavailable, require_tier, run_sandboxed_match

        tier = require_tier()
    except (ImportError, SandboxUnavailable) as error:
        warnings.warn(f"no sandbox here, so the games run in this process ({error})", stacklevel=2)
        return run_match(spec, [InProcessPlayer(source) for source in sources], limits=limits)
    return run_sandboxed_match(spec, sources, limits=limits, tier=tier)


def assert_clean(result: MatchResult) -> None:
    """No failure of any bot, and every game replays exactly with the engine."""
    assert result.games, "no game was played"
    for game in result.games:
        for failure in game.failures:
            who = game.names[failure.seat]
            raise AssertionError(
                f"{who}: {failure.kind} in game {game.index}, decision {failure.decision}: {failure.message}"
            )
        verification = verify_replay(game.replay)
        assert verification.ok, verification.message


def test_it_plays_each_built_in_bot() -> None:
    for opponent in ("random", "greedy", "heuristic"):
        assert_clean(play([opponent], games=2))


def test_it_plays_every_table_size_and_both_rulesets() -> None:
    assert_clean(play(["heuristic", "greedy"], games=3, ruleset="bga"))
    assert_clean(play(["random", "greedy", "heuristic"], games=4))
    assert_clean(play(["random", "greedy", "heuristic", "random"], games=5, ruleset="bga"))


def test_it_answers_a_legal_action_in_a_position() -> None:
    # The bot itself, in this process, on positions of a real game: the way to test one decision.
    bot = load_policy(HERE)
    state = new_game(3, "standard", seed=7)
    bot.start_game({"seat": 0, "num_players": 3, "ruleset": "standard", "game": 0})
    while not state.is_over:
        observation = state.observation(state.current_player)
        if state.current_player == 0:
            action = bot.act(observation)
            assert action in observation["legal_actions"]
        else:
            action = observation["legal_actions"][0]
        state.apply(action)


if __name__ == "__main__":
    # `python test_bot.py`: the same tests, without pytest.
    tests = [test for name, test in sorted(globals().items()) if name.startswith("test_") and callable(test)]
    failed = 0
    for test in tests:
        try:
            test()
        except AssertionError as error:
            failed += 1
            print(f"FAILED {test.__name__}: {error}", file=sys.stderr)
        else:
            print(f"ok     {test.__name__}")
    sys.exit(1 if failed else 0)
