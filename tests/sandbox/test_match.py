"""Whole matches through the sandbox: same results as in-process play, the referee's failure
policy applied through sandboxed players, tier detection that fails closed."""

from __future__ import annotations

import dataclasses
import errno
import tempfile
from pathlib import Path

import pyseccomp
import pytest
from sandbox_helpers import FAST, hostile_bot, play_one_game

from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import MatchResult, PlatformFailure, run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource, builtin_source
from lineit.sandbox import (
    SandboxUnavailable,
    detect_tier,
    doctor_report,
    launch,
    run_sandboxed_match,
    runtime,
    tiers,
)


def test_a_sandboxed_match_plays_exactly_like_an_in_process_one(tier: str) -> None:
    spec = MatchSpec(num_players=3, games=3, seed=5)
    sources = [builtin_source("random")] * 3

    sandboxed = run_sandboxed_match(spec, sources, tier=tier)
    trusted = run_match(spec, [InProcessPlayer(source) for source in sources])

    assert sandboxed.tier == tier
    assert [game.replay["actions"] for game in sandboxed.games] == [game.replay["actions"] for game in trusted.games]
    assert [game.scores for game in sandboxed.games] == [game.scores for game in trusted.games]
    assert [game.ranks for game in sandboxed.games] == [game.ranks for game in trusted.games]
    assert sandboxed.failures == []
    assert all(timing.decisions > 0 for game in sandboxed.games for timing in game.timings)


# Bots that fail in ways an in-process player once let through to the referee unclassified (the
# match failed, or a failure of the bot's choosing was taken), or classified otherwise than the
# sandbox does.
MISBEHAVING = {
    # a failure of its own making, claiming the platform's fault (in the sandbox the referee's
    # package is not importable: it raises as it would)
    "claims_the_platforms_fault": """
def act(observation):
    try:
        from lineit.botkit.failures import BotFailure
    except ImportError:
        raise RuntimeError("no referee here") from None
    raise BotFailure("startup_failed", "the platform's fault, honestly")
""",
    "raises_the_loaders_error_while_playing": """
from lineit.botkit.interface import BotLoadError

def act(observation):
    raise BotLoadError("not loading now")
""",
    "raises_the_loaders_error_while_loading": """
from lineit.botkit.interface import BotLoadError

raise BotLoadError("my own load error")
""",
    "raises_generator_exit": "def act(observation):\n    raise GeneratorExit('done')\n",
    "raises_a_base_exception_of_its_own": """
class Escape(BaseException):
    pass

def act(observation):
    raise Escape("out of the referee")
""",
    "raises_memory_error_while_playing": "def act(observation):\n    raise MemoryError\n",
    "raises_memory_error_while_loading": "raise MemoryError\n",
    "exits_in_start_game": "import sys\n\ndef start_game(info):\n    sys.exit(4)\n\ndef act(observation):\n    pass\n",
    # longer than a frame, cut in the middle of a character (the sandboxed action is cut short)
    "returns_an_action_longer_than_a_frame": "def act(observation):\n    return '\u00e9' * 600_000\n",
    # a str whose own == says it is every legal action (and whose hash is not the engine's)
    "returns_a_str_that_equals_everything": """
class Anything(str):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0

def act(observation):
    return Anything("no such action")
""",
}


@pytest.mark.parametrize("name", sorted(MISBEHAVING))
def test_a_bot_fails_alike_in_process_and_sandboxed(tier: str, tmp_path: Path, name: str) -> None:
    path = tmp_path / name / "bot.py"
    path.parent.mkdir()
    path.write_text(MISBEHAVING[name])
    sources = [BotSource(name, path), builtin_source("random")]
    spec = MatchSpec(num_players=2, games=1, seed=11)

    trusted = run_match(spec, [InProcessPlayer(source) for source in sources], limits=FAST)
    sandboxed = run_sandboxed_match(spec, sources, limits=FAST, tier=tier)

    def seen(result: MatchResult) -> list[tuple[str, int, int]]:
        return [(failure.kind, failure.seat, failure.decision) for failure in result.failures]

    assert len(seen(sandboxed)) == 1
    assert seen(trusted) == seen(sandboxed)
    assert trusted.games[0].replay["actions"] == sandboxed.games[0].replay["actions"]


def test_the_referees_failure_policy_applies_to_sandboxed_players(tier: str, tmp_path: Path) -> None:
    crasher = hostile_bot("crash_every_game", tmp_path)
    limits = Limits(max_failures=2)

    result = play_one_game(tier, crasher, limits, games=4)

    kinds = [[(failure.kind, failure.seat) for failure in game.failures] for game in result.games]
    # entrant 0 sits in seat 0, then 1 (seat rotation); it fails in two games, restarted for the
    # second, then it is stopped and forfeits the rest without running
    assert kinds == [[("exception", 0)], [("exception", 1)], [("stopped", 0)], [("stopped", 1)]]
    assert [game.forfeits for game in result.games] == [[0], [1], [0], [1]]
    for game in result.games:
        assert game.ranks[game.forfeits[0]] == 2  # a forfeit ranks last, the stand-in finishes the game
        assert len(game.scores) == 2


def test_a_sandbox_that_does_not_start_stops_the_match_without_blaming_a_bot(
    tier: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = dataclasses.replace(runtime.interpreter(), executable=Path("/nonexistent/python3"))
    monkeypatch.setattr(launch, "interpreter", lambda: broken)  # the Landlock tier's interpreter
    monkeypatch.setattr(launch, "SANDBOX_PYTHON", "/nonexistent/python3")  # where bubblewrap looks

    with pytest.raises(PlatformFailure, match=r"could not start|did not report") as stopped:
        play_one_game(tier, builtin_source("random"), FAST)

    # the sandbox's own output (bwrap's here) is for the operator, not the message a match page shows
    if tier == "bubblewrap":
        assert "/nonexistent/python3" in stopped.value.detail
        assert "/nonexistent/python3" not in str(stopped.value)


def test_detection_tries_every_tier_and_the_doctor_says_so() -> None:
    text = doctor_report()  # detects again, and caches what it found
    report = detect_tier()

    assert [tier for tier, _, _ in report.attempts] == ["bubblewrap", "landlock"]
    for tier, ok, reason in report.attempts:
        assert f"[{'ok' if ok else 'FAILED'}] {tier}: {reason}" in text
    assert report.name == (report.working[0] if report.working else None)


def test_no_working_tier_means_untrusted_bots_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiers, "try_tier", lambda tier: (False, f"{tier} refused for this test"))
    try:
        report = detect_tier(refresh=True)
        assert report.name is None
        with pytest.raises(SandboxUnavailable, match=r"bubblewrap refused for this test.*landlock refused"):
            run_sandboxed_match(MatchSpec(2, 1), [builtin_source("random")] * 2)
        assert "NO TIER WORKS" in doctor_report()
    finally:
        monkeypatch.undo()
        detect_tier(refresh=True)


def test_an_unknown_or_broken_tier_cannot_be_forced() -> None:
    with pytest.raises(ValueError, match="unknown sandbox tier"):
        run_sandboxed_match(MatchSpec(2, 1), [builtin_source("random")] * 2, tier="chroot")


def test_the_canary_rejects_a_tier_whose_filter_lets_sockets_through(
    tier: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    permissive = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    permissive.add_rule(pyseccomp.ERRNO(errno.EPERM), "fork")  # everything else open
    with tempfile.TemporaryFile() as handle:
        permissive.export_bpf(handle)
        handle.seek(0)
        program = handle.read()
    monkeypatch.setattr(launch, "program", lambda complete: program)

    works, reason = tiers.try_tier(tier)

    assert not works
    assert "the canary got out" in reason and "tcp socket" in reason
