"""The fair-play invariant: no bot process ever plays two games of the same deal.

Every path plays through the referee's lanes (schedule.lane_of): an entrant has one process per
seat rotation, so a bot that remembers the cards of a deal's first game never meets that deal
again in the same process. tests/fair_play/memory_bot.py fails loudly when it does; the control
below shows it would, were one process to play every game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import MatchResult, run_match
from lineit.botkit.schedule import MatchSpec, game_plans, lane_of
from lineit.botkit.sources import BotSource
from lineit.sandbox import run_sandboxed_match

FAIR_PLAY = Path(__file__).resolve().parent.parent / "fair_play"
MEMORY_BOT = FAIR_PLAY / "memory_bot.py"  # memory and files
MEMORY_ONLY_BOT = FAIR_PLAY / "memory_only_bot.py"  # memory: in-process bots share the files


def source(path: Path, name: str) -> BotSource:
    return BotSource(name=name, path=path, builtin=False)


def seen_twice(result: MatchResult) -> list[str]:
    return [failure.message for failure in result.failures if "seen twice" in failure.message]


class OneProcess(InProcessPlayer):
    """The old way: one load of the bot plays every game of its entrant (until it fails)."""

    def start(self, timeout: float) -> None:
        if self._policy is None:
            super().start(timeout)

    def start_game(self, info: dict[str, Any], timeout: float) -> None:
        self.start(timeout)  # after a failure in another lane (the same player here)
        super().start_game(info, timeout)

    def fresh(self) -> OneProcess:
        return self


def test_the_memory_bot_finds_a_deal_again_when_one_process_plays_every_game() -> None:
    players = [OneProcess(source(MEMORY_ONLY_BOT, f"memory{entrant}")) for entrant in range(2)]
    result = run_match(MatchSpec(num_players=2, games=8, seed=1), players, limits=Limits(max_failures=100))
    assert len(seen_twice(result)) == 8  # the second rotation of every deal, for both entrants


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("ruleset", ["standard", "bga"])
def test_in_process_no_bot_meets_a_deal_twice(num_players: int, ruleset: str) -> None:
    players = [InProcessPlayer(source(MEMORY_ONLY_BOT, f"memory{entrant}")) for entrant in range(num_players)]
    spec = MatchSpec(num_players=num_players, games=3 * num_players, ruleset=ruleset, seed=num_players)
    result = run_match(spec, players, limits=Limits())
    assert len(result.games) == 3 * num_players
    assert seen_twice(result) == [] and result.failures == []


@pytest.mark.parametrize("num_players", [2, 5])
def test_in_the_sandbox_no_bot_meets_a_deal_twice_in_memory_or_in_files(num_players: int) -> None:
    sources = [source(MEMORY_BOT, f"memory{entrant}") for entrant in range(num_players)]
    spec = MatchSpec(num_players=num_players, games=2 * num_players, seed=7)
    result = run_sandboxed_match(spec, sources, limits=Limits())
    assert result.failures == []


def test_a_bot_that_fails_gets_a_new_process_for_its_lane_and_still_meets_no_deal_twice(tmp_path: Path) -> None:
    """A failure closes that lane's process; its next game starts another, which has seen
    nothing: the memory bot, failing every third game, never finds a deal again."""
    flaky = tmp_path / "flaky_memory.py"
    flaky.write_text(
        MEMORY_ONLY_BOT.read_text()
        + "\n\nclass Bot(Bot):\n"
        + "    def start_game(self, info):\n        super().start_game(info)\n        self.game = info['game']\n\n"
        + "    def act(self, observation):\n        action = super().act(observation)\n"
        + "        if self.game % 3 == 2:\n            raise ValueError('bad luck')\n        return action\n"
    )
    players = [InProcessPlayer(source(flaky, "flaky")), InProcessPlayer(source(MEMORY_ONLY_BOT, "memory"))]
    result = run_match(MatchSpec(num_players=2, games=12, seed=3), players, limits=Limits(max_failures=100))
    assert seen_twice(result) == []
    assert {failure.message for failure in result.failures} == {"ValueError: bad luck"}


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("duplicate_deals", [True, False])
def test_every_lane_plays_each_deal_once_whatever_part_of_the_match_is_played(
    num_players: int, duplicate_deals: bool
) -> None:
    """The lanes of the whole match and of any shard of it (a --jobs worker, a platform chunk)
    are the same per game, and within each, every (entrant, lane) pair meets each deal once."""
    spec = MatchSpec(num_players=num_players, games=10 * num_players, seed=1, duplicate_deals=duplicate_deals)
    whole = game_plans(spec)
    met: set[tuple[int, int, int]] = set()
    for plan in whole:
        assert plan.lane == lane_of(plan.index, num_players, duplicate_deals)
        for entrant in plan.seats:
            assert (entrant, plan.lane, plan.deal) not in met
            met.add((entrant, plan.lane, plan.deal))
    lanes = {plan.lane for plan in whole}
    assert lanes == (set(range(num_players)) if duplicate_deals else {0})
    shard = MatchSpec(
        num_players=num_players,
        games=spec.games,
        seed=1,
        duplicate_deals=duplicate_deals,
        shard=range(num_players, 3 * num_players),
    )
    assert game_plans(shard) == whole[num_players : 3 * num_players]


def test_a_seed_left_out_is_drawn_anew_each_time() -> None:
    seeds = {MatchSpec(num_players=2, games=2).seed for _ in range(20)}
    assert len(seeds) == 20 and all(0 <= seed < 2**62 for seed in seeds)
