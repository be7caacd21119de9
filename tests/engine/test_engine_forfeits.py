"""The engine's rules for the forfeits of a replay (lineit/engine/forfeits.py): the stand-in's
stream as the engine replays it, the kinds and where each can happen. The forgeries of whole
replays are in tests/botkit/test_replay_forgeries.py."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from lineit.botkit.failures import KINDS, PLATFORM_FAULTS
from lineit.engine.forfeits import (
    AT_A_DECISION,
    BEFORE_PLAY,
    EITHER,
    FAILURE_PHASES,
    STARTUP_FAILED,
    StandInStream,
    stand_in_action,
)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), sizes=st.lists(st.integers(1, 300), max_size=60))
def test_the_stand_in_stream_draws_what_the_referee_draws(seed: int, sizes: list[int]) -> None:
    """The engine replays the stand-in word by word; the referee draws with random.Random.randrange."""
    generator = random.Random(seed)
    stream = StandInStream(seed)
    for size in sizes:
        legal = [f"action {index}" for index in range(size)]
        assert stream.choose(legal) == stand_in_action(generator, legal)


def test_a_fork_continues_from_where_it_was_made_and_leaves_the_stream_alone() -> None:
    stream = StandInStream(12345)
    legal = [str(index) for index in range(7)]
    drawn = [stream.choose(legal) for _ in range(5)]
    fork = stream.fork()
    ahead = [fork.choose(legal) for _ in range(20)]
    assert [stream.choose(legal) for _ in range(20)] == ahead
    generator = random.Random(12345)
    assert [stand_in_action(generator, legal) for _ in range(25)] == drawn + ahead


def test_every_kind_a_bot_can_fail_with_has_its_phase_and_the_platform_s_fault_none() -> None:
    assert set(FAILURE_PHASES) == set(KINDS) - PLATFORM_FAULTS
    assert {STARTUP_FAILED} == PLATFORM_FAULTS
    assert set(FAILURE_PHASES.values()) == {BEFORE_PLAY, AT_A_DECISION, EITHER}
    assert FAILURE_PHASES["stopped"] == FAILURE_PHASES["load"] == BEFORE_PLAY
    assert FAILURE_PHASES["illegal_move"] == FAILURE_PHASES["time_budget"] == AT_A_DECISION
