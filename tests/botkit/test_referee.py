"""The referee's failure policy, schedule and statistics, with trusted in-process bots.

The same policy applied to sandboxed bots is tested in tests/sandbox/test_match.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lineit.botkit.failures import EXCEPTION, ILLEGAL_MOVE, PROTOCOL, STOPPED, TIME_BUDGET, TIMEOUT
from lineit.botkit.limits import Clock, Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec, deck_seed, game_plans
from lineit.botkit.sources import BotSource, resolve_bot
from lineit.botkit.summary import summarize
from lineit.engine import verify_replay
from lineit.stats.intervals import mean_interval


def bot_file(tmp_path: Path, name: str, code: str) -> BotSource:
    path = tmp_path / f"{name}.py"
    path.write_text(code)
    return BotSource(name=name, path=path)


def players(*sources: BotSource) -> list[InProcessPlayer]:
    return [InProcessPlayer(source) for source in sources]


def test_duplicate_deals_play_each_deck_once_per_seat_rotation() -> None:
    plans = game_plans(MatchSpec(num_players=3, games=6, seed=9))
    assert [plan.deal for plan in plans] == [0, 0, 0, 1, 1, 1]
    assert len({plan.deck_seed for plan in plans[:3]}) == 1
    assert plans[0].deck_seed != plans[3].deck_seed
    # Within a deal every entrant sits in every seat once.
    for deal in (plans[:3], plans[3:]):
        for seat in range(3):
            assert sorted(plan.seats[seat] for plan in deal) == [0, 1, 2]


def test_without_duplicate_deals_every_game_has_its_own_deck_and_seats_still_rotate() -> None:
    plans = game_plans(MatchSpec(num_players=2, games=4, seed=9, duplicate_deals=False))
    assert len({plan.deck_seed for plan in plans}) == 4
    assert [plan.seats for plan in plans] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    fixed = game_plans(MatchSpec(num_players=2, games=2, duplicate_deals=False, rotate_seats=False))
    assert [plan.seats for plan in fixed] == [(0, 1), (0, 1)]


def test_deck_seeds_are_stable_and_depend_on_match_seed_and_deal() -> None:
    assert deck_seed(1, 0) == deck_seed(1, 0)
    assert len({deck_seed(1, 0), deck_seed(1, 1), deck_seed(2, 0)}) == 3


@pytest.mark.parametrize(
    "arguments",
    [
        {"num_players": 1, "games": 2},
        {"num_players": 6, "games": 2},
        {"num_players": 2, "games": 0},
        {"num_players": 2, "games": 2, "ruleset": "chess"},
        {"num_players": 2, "games": 2, "seed": -1},
    ],
)
def test_a_match_that_cannot_be_played_is_refused(arguments: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        MatchSpec(**arguments)  # type: ignore[arg-type]


def test_a_match_between_built_in_bots_gives_verifiable_replays_and_consistent_totals() -> None:
    result = run_match(MatchSpec(num_players=2, games=4, seed=3), players(resolve_bot("random"), resolve_bot("greedy")))
    assert len(result.games) == 4
    for game in result.games:
        assert verify_replay(game.replay).ok
        assert game.replay["meta"]["entrants"] == list(game.seats)
        assert game.failures == [] and game.forfeits == []
    rows = summarize(result)
    assert [row.games for row in rows] == [4, 4]
    assert sum(row.win_rate for row in rows) == pytest.approx(1.0)


def test_a_bot_that_raises_forfeits_the_game_and_a_stand_in_finishes_it(tmp_path: Path) -> None:
    broken = bot_file(tmp_path, "broken", "def act(observation):\n    raise RuntimeError('boom')\n")
    result = run_match(MatchSpec(num_players=2, games=2, seed=1), players(broken, resolve_bot("random")))
    for game in result.games:
        seat = game.seats.index(0)
        assert game.forfeits == [seat]
        assert game.ranks[seat] == 2 and game.ranks[1 - seat] == 1
        (failure,) = game.failures
        assert (failure.kind, failure.seat) == (EXCEPTION, seat)
        assert "RuntimeError: boom" in failure.message
        assert verify_replay(game.replay).ok  # the stand-in played legal moves to the end


def test_after_max_failures_a_bot_is_stopped_for_the_rest_of_the_match(tmp_path: Path) -> None:
    broken = bot_file(tmp_path, "broken", "def act(observation):\n    return 'resign'\n")
    result = run_match(
        MatchSpec(num_players=2, games=4, seed=1), players(broken, resolve_bot("random")), limits=Limits(max_failures=2)
    )
    kinds = [[failure.kind for failure in game.failures] for game in result.games]
    assert kinds == [[ILLEGAL_MOVE], [ILLEGAL_MOVE], [STOPPED], [STOPPED]]
    assert "'resign' is not an action" in result.games[0].failures[0].message
    assert all(game.forfeits == [game.seats.index(0)] for game in result.games)


def test_a_non_string_answer_is_a_protocol_failure(tmp_path: Path) -> None:
    bot = bot_file(tmp_path, "numbers", "def act(observation):\n    return 7\n")
    result = run_match(MatchSpec(num_players=2, games=2), players(bot, resolve_bot("random")))
    assert {failure.kind for game in result.games for failure in game.failures} == {PROTOCOL}


@pytest.mark.parametrize(
    ("bank_seconds", "kind"),
    [(10.0, TIMEOUT), (0.0, TIME_BUDGET)],  # the per-move cap binds / the allowance plus bank binds
)
def test_a_slow_in_process_bot_is_classified_after_the_fact(tmp_path: Path, bank_seconds: float, kind: str) -> None:
    slow = bot_file(
        tmp_path,
        "slow",
        "import time\ndef act(observation):\n    time.sleep(0.05)\n    return observation['legal_actions'][0]\n",
    )
    limits = Limits(move_seconds=0.001, bank_seconds=bank_seconds, move_timeout_seconds=0.01)
    result = run_match(MatchSpec(num_players=2, games=2), players(slow, resolve_bot("random")), limits=limits)
    assert [game.failures[0].kind for game in result.games] == [kind, kind]


def test_the_clock_draws_overage_from_the_bank_and_caps_a_move() -> None:
    clock = Clock(Limits(move_seconds=0.5, bank_seconds=2.0, move_timeout_seconds=5.0))
    assert clock.deadline() == (2.5, False)
    clock.spend(1.5)  # one second over the allowance
    assert clock.bank == pytest.approx(1.0)
    clock.spend(0.2)  # within the allowance: the bank is untouched
    assert clock.bank == pytest.approx(1.0)
    rich = Clock(Limits(move_seconds=0.5, bank_seconds=60.0, move_timeout_seconds=5.0))
    assert rich.deadline() == (5.0, True)


def test_a_shared_win_counts_one_over_k_in_win_rates(tmp_path: Path) -> None:
    # Two copies of the same deterministic bot on a duplicate deal tie every game.
    same = bot_file(tmp_path, "first", "def act(observation):\n    return observation['legal_actions'][-1]\n")
    result = run_match(MatchSpec(num_players=2, games=2, seed=5), players(same, same))
    ties = [game for game in result.games if game.ranks == [1, 1]]
    rows = summarize(result)
    wins = [
        sum(1 / game.ranks.count(1) for game in result.games if game.ranks[game.seats.index(e)] == 1) for e in (0, 1)
    ]
    assert [row.win_rate for row in rows] == pytest.approx([w / 2 for w in wins])
    assert sum(row.win_rate for row in rows) == pytest.approx(1.0)
    assert ties or all(row.win_rate in (0.0, 0.5, 1.0) for row in rows)


def test_mean_interval_uses_students_t_and_refuses_to_guess_from_one_value() -> None:
    mean, half = mean_interval([1.0, 3.0])
    assert mean == 2.0 and half == pytest.approx(12.706 * 1.0, abs=1e-3)
    assert mean_interval([5.0])[1] == float("inf")


def test_an_illegal_action_is_quoted_short_in_its_explanation():
    from lineit.engine import explain_illegal_action, new_game

    state = new_game(2, seed=3)
    huge = "take 37 line " + "x" * 500_000

    explanation = explain_illegal_action(state, huge)

    assert len(explanation) < 1000 and f"({len(huge)} characters)" in explanation
    assert explanation.startswith(repr(huge[:60]))


def test_a_failure_message_and_tail_are_capped_whoever_raises_them():
    from lineit.botkit.failures import MAX_MESSAGE, MAX_STDERR_TAIL, BotFailure

    failure = BotFailure("exception", "ValueError: " + "x" * 200_000, "y" * 100_000 + "THE END")

    assert len(failure.message) <= MAX_MESSAGE and failure.message.endswith("(200012 characters in all)")
    assert len(failure.stderr_tail) == MAX_STDERR_TAIL and failure.stderr_tail.endswith("THE END")
