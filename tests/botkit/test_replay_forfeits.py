"""Replays of games with real forfeits verify, and a hostile edit of any field of a genuine
replay either fails verification or is reported as a claim (docs/replay-format.md, "What
verification checks"). The forfeits come from the hostile bots of tests/cli/hostile and
tests/sandbox/hostile, in-process and sandboxed."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource, resolve_bot
from lineit.engine import ranks_with_forfeits, verify_replay
from lineit.replay_signature import check_signature, sign_replay
from lineit.sandbox import run_sandboxed_match

TESTS = Path(__file__).resolve().parent.parent
CLI_HOSTILE = TESTS / "cli" / "hostile"
SANDBOX_HOSTILE = TESTS / "sandbox" / "hostile"
FAST = Limits(move_seconds=0.2, bank_seconds=5, move_timeout_seconds=0.3, startup_seconds=10, max_failures=1)

# Returns "close" when it must take a card: an action of the game, illegal there.
CLOSE_TOO_EARLY = """
class Bot:
    def start_game(self, info):
        self.moves = 0

    def act(self, observation):
        self.moves += 1
        if self.moves >= 5 and observation["phase"] == "take":
            return "close"
        return observation["legal_actions"][0]
"""


def bot(path: Path) -> BotSource:
    return BotSource(path.stem, path)


def in_process(sources: list[BotSource], games: int = 1, limits: Limits | None = None) -> list[dict[str, Any]]:
    result = run_match(
        MatchSpec(num_players=len(sources), games=games, seed=9), [InProcessPlayer(s) for s in sources], limits=limits
    )
    return [json.loads(json.dumps(game.replay)) for game in result.games]


def sandboxed(sources: list[BotSource], games: int = 1) -> list[dict[str, Any]]:
    result = run_sandboxed_match(MatchSpec(num_players=len(sources), games=games, seed=9), sources, limits=FAST)
    return [json.loads(json.dumps(game.replay)) for game in result.games]


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """A genuine replay per kind of forfeit, and one without any."""
    folder = tmp_path_factory.mktemp("bots")
    early = folder / "close_too_early.py"
    early.write_text(CLOSE_TOO_EARLY)
    random_bot = resolve_bot("random")
    found = {"none": in_process([random_bot, resolve_bot("greedy")])[0]}
    found["illegal action"] = in_process([bot(early), random_bot])[0]
    found["illegal non-action"] = in_process([random_bot, bot(CLI_HOSTILE / "illegal_action.py")])[0]
    found["exception"] = in_process([bot(SANDBOX_HOSTILE / "crash_every_game.py"), random_bot])[0]
    found["load"] = in_process([random_bot, bot(CLI_HOSTILE / "import_error.py")])[0]
    timeout, stopped = sandboxed([bot(SANDBOX_HOSTILE / "infinite_sleep.py"), random_bot], games=2)
    found["timeout"], found["stopped"] = timeout, stopped
    found["crash"] = sandboxed([random_bot, bot(SANDBOX_HOSTILE / "crash_segfault.py")])[0]
    return found


KINDS = {
    "illegal action": "illegal_move",
    "illegal non-action": "illegal_move",
    "exception": "exception",
    "load": "load",
    "timeout": "timeout",
    "stopped": "stopped",
    "crash": "crash",
}


def test_genuine_replays_verify_and_name_each_forfeit_as_a_claim(genuine: dict[str, dict[str, Any]]) -> None:
    clean = verify_replay(genuine["none"])
    assert clean.ok and len(clean.claims) == 1 and "players" in clean.claims[0], clean
    for name, kind in KINDS.items():
        document = genuine[name]
        assert [failure["kind"] for failure in document["meta"]["failures"]] == [kind], name
        verdict = verify_replay(document)
        assert verdict.ok, (name, verdict.message)
        (seat,) = document["forfeits"]
        (claim,) = verdict.claims[1:]
        assert claim.startswith(f"seat {seat} ") and kind in claim and "stand-in's (checked)" in claim, claim
        assert claim in verdict.message
    assert "'close', which it returned, is illegal there (checked)" in verify_replay(genuine["illegal action"]).message
    assert genuine["illegal action"]["illegal_actions"] and not genuine["illegal non-action"]["illegal_actions"]
    assert "no trace in the moves" in verify_replay(genuine["timeout"]).message


def winner(document: dict[str, Any]) -> int:
    return next(seat for seat, rank in enumerate(document["ranks"]) if rank == 1 and seat not in document["forfeits"])


def blame(document: dict[str, Any], seat: int, kind: str = "timeout", decision: int | None = None) -> None:
    """Mark ``seat`` as forfeiting, with a failure and the ranks that follow: the edit of issue 14."""
    if decision is None:
        decision = next(index for index, (who, _) in enumerate(document["actions"]) if who == seat)
    document["forfeits"] = sorted({*document["forfeits"], seat})
    document["meta"]["failures"].append({"kind": kind, "seat": seat, "game": 0, "decision": decision})
    document["ranks"] = ranks_with_forfeits(document["scores"], document["forfeits"])


def last_decision(document: dict[str, Any], seat: int) -> int:
    return max(index for index, (who, _) in enumerate(document["actions"]) if who == seat)


Edit = Callable[[dict[str, Any]], None]

# Each edit of a genuine replay, and a fragment of the message that refuses it.
EDITS: dict[str, tuple[str, Edit, str]] = {
    "the winner forfeits": ("none", lambda d: blame(d, winner(d)), "the stand-in plays for it"),
    "the winner forfeits at its last move": (
        "none",
        lambda d: blame(d, winner(d), decision=last_decision(d, winner(d))),
        "the stand-in plays for it",
    ),
    "the winner forfeits before the game": ("none", lambda d: blame(d, winner(d), "load", -1), "stand-in plays"),
    "a forfeit without its failure": (
        "none",
        lambda d: d.update(forfeits=[winner(d)], ranks=ranks_with_forfeits(d["scores"], [winner(d)])),
        "does not record",
    ),
    "a failure without its forfeit": ("exception", lambda d: d.update(forfeits=[]), "'forfeits' does not name"),
    "a forfeit dropped": (
        "exception",
        lambda d: d.update(forfeits=[], ranks=ranks_with_forfeits(d["scores"]), meta={**d["meta"], "failures": []}),
        "was played by the stand-in from decision",  # its moves are the stand-in's for too long
    ),
    "the failure moved earlier": (
        "exception",
        lambda d: d["meta"]["failures"][0].update(decision=d["meta"]["failures"][0]["decision"] - 4),
        "",
    ),
    "the failure moved later": (
        "timeout",
        lambda d: d["meta"]["failures"][0].update(decision=d["meta"]["failures"][0]["decision"] + 10),
        "",
    ),
    "the failure at another seat's decision": (
        "exception",
        lambda d: d["meta"]["failures"][0].update(decision=other_seats_decision(d)),
        "which was seat",
    ),
    "the failure at a decision the game lacks": (
        "exception",
        lambda d: d["meta"]["failures"][0].update(decision=len(d["actions"])),
        "does not have",
    ),
    "two failures of a seat": (
        "exception",
        lambda d: d["meta"]["failures"].append(dict(d["meta"]["failures"][0])),
        "two failures",
    ),
    "an illegal action that was legal": (
        "illegal action",
        lambda d: d["illegal_actions"][0].__setitem__(1, d["actions"][d["illegal_actions"][0][0]][1]),
        "is legal there",
    ),
    "an illegal action without its failure": (
        "exception",
        lambda d: d["illegal_actions"].append([d["meta"]["failures"][0]["decision"], "close"]),
        "no seat forfeited by an illegal move",
    ),
    "an unknown stand-in": ("exception", lambda d: d.update(stand_in="heuristic"), "unknown to this engine"),
    "a stand-in's move changed": ("exception", lambda d: change_stand_in_move(d), ""),
    "scores": ("none", lambda d: d["scores"].__setitem__(0, d["scores"][0] + 1), "recorded scores"),
    "scores as floats": ("none", lambda d: d.update(scores=[float(score) for score in d["scores"]]), "recorded scores"),
    "ranks": ("exception", lambda d: d.update(ranks=ranks_with_forfeits(d["scores"])), "recorded ranks"),
    "ranks as booleans": ("none", lambda d: d.update(ranks=[rank == 1 for rank in d["ranks"]]), "recorded ranks"),
    "seed": ("none", lambda d: d.update(seed=d["seed"] + 1), "the deck is not the one seed"),
    "deck": ("none", lambda d: d["deck"].reverse(), ""),
    "first player": ("none", lambda d: d.update(first_player=1), "turn"),
    "num_players": ("none", lambda d: d.update(num_players=3), "player names"),
    "ruleset": ("none", lambda d: d.update(ruleset="bga"), ""),
    "rules version": ("none", lambda d: d.update(rules_version="0.9"), "rules"),
    "format version as a boolean": ("none", lambda d: d.update(format_version=True), "not supported"),
    "a seat as a boolean": ("none", lambda d: d["actions"][1].__setitem__(0, bool(d["actions"][1][0])), ""),
    "an action removed": ("none", lambda d: d["actions"].pop(), "stop before the game is over"),
    "an unknown field": ("none", lambda d: d.update(winner=1), "unknown field 'winner'"),
    "a timing field": ("none", lambda d: d.update(timings=[{"total_seconds": 0}]), "unknown field 'timings'"),
    "a missing field": ("none", lambda d: d.pop("forfeits"), "lacks the field 'forfeits'"),
    "version 1 fields in version 2 dropped": ("none", lambda d: d.pop("stand_in"), "lacks the field"),
}


def other_seats_decision(document: dict[str, Any]) -> int:
    seat = document["forfeits"][0]
    return next(index for index, (who, _) in enumerate(document["actions"]) if who != seat)


def change_stand_in_move(document: dict[str, Any]) -> None:
    """Replace a stand-in's move by another legal one (the game then differs from there on, so
    the edit replays only when it is the forfeited seat's last move and nothing depends on it)."""
    from lineit.engine import new_game

    seat = document["forfeits"][0]
    index = last_decision(document, seat)
    state = new_game(document["num_players"], document["ruleset"], deck=document["deck"])
    for _, action in document["actions"][:index]:
        state.apply(action)
    document["actions"][index][1] = next(a for a in state.legal_actions() if a != document["actions"][index][1])


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_hostile_edit_of_a_genuine_replay_does_not_verify(genuine: dict[str, dict[str, Any]], edit: str) -> None:
    base, change, fragment = EDITS[edit]
    document = copy.deepcopy(genuine[base])
    assert verify_replay(document).ok
    change(document)
    verdict = verify_replay(document)
    if edit == "the winner forfeits at its last move" and verdict.ok:
        # The stand-in may well have chosen the winner's last moves itself (one legal action in
        # two or three): only the platform's signature refuses that (test_replay_forgeries.py).
        key = Ed25519PrivateKey.generate()
        document["signature"] = sign_replay(genuine[base], key)["signature"]
        assert not check_signature(document, key.public_key()).ok
        return
    assert not verdict.ok, (edit, verdict.message)
    assert fragment in verdict.message, verdict.message


def test_what_cannot_be_checked_is_reported_as_claims(genuine: dict[str, dict[str, Any]]) -> None:
    names = copy.deepcopy(genuine["none"])
    names["players"].reverse()
    names["meta"]["entrants"].reverse()
    verdict = verify_replay(names)
    assert verdict.ok and verdict.claims == ("who played each seat (players, meta), the producer's word",)

    for field, value in (("seed", None), ("stand_in", None)):
        unchecked = copy.deepcopy(genuine["exception"]) | {field: value}
        verdict = verify_replay(unchecked)
        assert verdict.ok and "were not checked" in verdict.claims[1], verdict.message
        assert "unverified" in verdict.message

    no_failures = copy.deepcopy(genuine["exception"])
    del no_failures["meta"]["failures"]
    verdict = verify_replay(no_failures)
    assert verdict.ok and "no failure recorded" in verdict.message


def test_a_version_1_replay_still_verifies_its_forfeits_as_claims(genuine: dict[str, dict[str, Any]]) -> None:
    for name in ("none", "exception", "illegal action"):
        old = {key: value for key, value in genuine[name].items() if key not in ("stand_in", "illegal_actions")}
        old["format_version"] = 1
        verdict = verify_replay(old)
        assert verdict.ok, verdict.message
        if old["forfeits"]:
            assert "were not checked" in verdict.message
            blamed = copy.deepcopy(old)
            blame(blamed, winner(blamed), decision=-1 if name != "exception" else None)
            assert verify_replay(blamed).ok  # version 1 says nothing of the stand-in: a claim
            assert "forfeited" in verify_replay(blamed).message
    with pytest.raises(Exception, match="unknown field 'stand_in'"):
        from lineit.engine import replay_game

        replay_game({**genuine["none"], "format_version": 1})
