"""A corpus of forged replays (issue 23, point 4): genuine replays of the referee, clean and with
forfeits at every stage of a game, and forgeries of every class the audit found. The engine
refuses every forgery the moves contradict, saying why; what the moves cannot contradict (a
forfeit invented where the stand-in would have played the very moves the bot played) the
platform's signature refuses, as it refuses an edit of any field. No genuine replay is refused.

Run with ``-s`` to see how many of each class the engine refuses by itself."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource, resolve_bot
from lineit.engine import new_game, ranks_with_forfeits, verify_replay
from lineit.engine.forfeits import EVIDENCE_BITS, stand_in_action
from lineit.replay_signature import check_signature, sign_replay

CLI_HOSTILE = Path(__file__).resolve().parent.parent / "cli" / "hostile"

# Raises at a move of its own that depends on the game: forfeits at every stage of a game.
FAILS_SOMEWHERE = """
class Bot:
    def start_game(self, info):
        self.moves = 0
        self.fail_at = 1 + (info["game"] * 37 + info["seat"] * 11) % 70

    def act(self, observation):
        self.moves += 1
        if self.moves == self.fail_at:
            raise RuntimeError("failed on purpose")
        return observation["legal_actions"][-1]
"""

# Returns "close" when it must take a card (an action, illegal there), at a move that depends on the game.
CLOSES_TOO_EARLY = """
class Bot:
    def start_game(self, info):
        self.moves = 0
        self.from_move = 3 + info["game"] * 13 % 50

    def act(self, observation):
        self.moves += 1
        if self.moves >= self.from_move and observation["phase"] == "take":
            return "close"
        return observation["legal_actions"][0]
"""

MANY = Limits(max_failures=1000)


def _replays(
    bots: list[BotSource], games: int, *, ruleset: str = "standard", seed: int, limits: Limits = MANY
) -> list[dict[str, Any]]:
    spec = MatchSpec(num_players=len(bots), games=games, ruleset=ruleset, seed=seed)
    result = run_match(spec, [InProcessPlayer(bot) for bot in bots], limits=limits)
    return [json.loads(json.dumps(game.replay)) for game in result.games]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """Genuine replays: ``clean`` ones and ones ``with forfeits`` (exception, illegal move, load,
    stopped), 2 to 5 players, both rulesets."""
    folder = tmp_path_factory.mktemp("bots")
    (folder / "fails_somewhere.py").write_text(FAILS_SOMEWHERE)
    (folder / "closes_too_early.py").write_text(CLOSES_TOO_EARLY)
    fails = BotSource("fails", folder / "fails_somewhere.py")
    closes = BotSource("closes", folder / "closes_too_early.py")
    loads_not = BotSource("import_error", CLI_HOSTILE / "import_error.py")
    random_bot, greedy = resolve_bot("random"), resolve_bot("greedy")
    clean = _replays([random_bot, greedy], 8, seed=1)
    clean += _replays([greedy, random_bot, random_bot], 6, ruleset="bga", seed=2)
    clean += _replays([random_bot, greedy, random_bot, greedy], 4, seed=3)
    clean += _replays([random_bot] * 4 + [greedy], 5, ruleset="bga", seed=4)
    forfeits = _replays([fails, random_bot], 12, seed=5)
    forfeits += _replays([random_bot, fails, greedy], 9, seed=6)
    forfeits += _replays([random_bot, greedy, random_bot, fails, random_bot], 5, ruleset="bga", seed=7)
    forfeits += _replays([closes, random_bot], 6, seed=8)
    forfeits += _replays([random_bot, loads_not], 2, seed=9)
    forfeits += _replays([fails, greedy], 3, seed=10, limits=Limits(max_failures=1))  # stopped from game 1 on
    assert all(not document["forfeits"] for document in clean)
    forfeits = [document for document in forfeits if document["forfeits"]]  # a bot may fail after the game's end
    assert len(forfeits) >= 25
    kinds = {failure["kind"] for document in forfeits for failure in document["meta"]["failures"]}
    assert kinds == {"exception", "illegal_move", "load", "stopped"}
    return {"clean": clean, "with forfeits": forfeits}


@pytest.fixture(scope="module")
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def test_no_genuine_replay_is_refused(corpus: dict[str, list[dict[str, Any]]], key: Ed25519PrivateKey) -> None:
    for document in corpus["clean"] + corpus["with forfeits"]:
        verdict = verify_replay(document)
        assert verdict.ok, verdict.message
        assert check_signature(sign_replay(document, key), key.public_key()).ok


# --- The forgeries -------------------------------------------------------------------------------


def decisions_of(document: dict[str, Any], seat: int) -> list[int]:
    return [number for number, (who, _) in enumerate(document["actions"]) if who == seat]


def winner(document: dict[str, Any]) -> int:
    return next(seat for seat, rank in enumerate(document["ranks"]) if rank == 1 and seat not in document["forfeits"])


def claim_forfeit(document: dict[str, Any], seat: int, kind: str, decision: int) -> None:
    """Mark ``seat`` as forfeiting with this failure, and the ranks that follow."""
    document["forfeits"] = sorted({*document["forfeits"], seat})
    document["meta"]["failures"].append(
        {"kind": kind, "seat": seat, "game": document["meta"]["game"], "decision": decision}
    )
    document["ranks"] = ranks_with_forfeits(document["scores"], document["forfeits"])


Forgery = tuple[str, dict[str, Any], dict[str, Any]]  # what was done, the genuine replay, the forged one


def invented_for_the_winner(corpus: dict[str, list[dict[str, Any]]]) -> Iterator[Forgery]:
    """The winner forfeits at one of its last five decisions: ranks [1, 2] become [2, 1]."""
    for document in corpus["clean"] + corpus["with forfeits"]:
        seat = winner(document)
        for decision in decisions_of(document, seat)[-5:]:
            forged = copy.deepcopy(document)
            claim_forfeit(forged, seat, "timeout", decision)
            yield f"seat {seat} times out at decision {decision}", document, forged


def moved_to_another_seat(corpus: dict[str, list[dict[str, Any]]]) -> Iterator[Forgery]:
    """A real forfeit moved to one of another seat's last three decisions."""
    for document in corpus["with forfeits"]:
        (failure,) = document["meta"]["failures"]
        for seat in set(range(document["num_players"])) - {failure["seat"]}:
            for decision in decisions_of(document, seat)[-3:]:
                forged = copy.deepcopy(document)
                forged.update(forfeits=[], illegal_actions=[])
                forged["meta"]["failures"] = []
                kind = failure["kind"] if failure["kind"] in ("exception", "illegal_move") else "timeout"
                claim_forfeit(forged, seat, kind, decision)
                yield f"seat {failure['seat']}'s forfeit moved to seat {seat} at decision {decision}", document, forged


def unknown_kind(corpus: dict[str, list[dict[str, Any]]]) -> Iterator[Forgery]:
    for document in corpus["with forfeits"]:
        forged = copy.deepcopy(document)
        forged["meta"]["failures"][0]["kind"] = "no-such-kind"
        forged["illegal_actions"] = []
        yield "a real failure's kind made 'no-such-kind'", document, forged
    for document in corpus["clean"]:
        forged = copy.deepcopy(document)
        seat = winner(forged)
        claim_forfeit(forged, seat, "no-such-kind", decisions_of(forged, seat)[-1])
        yield "the winner forfeits by 'no-such-kind'", document, forged


def stopped_mid_game(corpus: dict[str, list[dict[str, Any]]]) -> Iterator[Forgery]:
    for document in corpus["clean"]:
        forged = copy.deepcopy(document)
        seat = winner(forged)
        claim_forfeit(forged, seat, "stopped", decisions_of(forged, seat)[-1])
        yield "the winner stopped at its last decision", document, forged
    for document in corpus["with forfeits"]:
        if document["meta"]["failures"][0]["decision"] >= 0:
            forged = copy.deepcopy(document)
            forged["meta"]["failures"][0]["kind"] = "stopped"
            forged["illegal_actions"] = []
            yield "a real failure at a decision made 'stopped'", document, forged


def kind_out_of_place(corpus: dict[str, list[dict[str, Any]]]) -> Iterator[Forgery]:
    """A kind where it cannot happen: loading mid-game, an illegal move or the time bank before
    play, a stopped bot in a match's first game, the platform's own fault."""
    for document in corpus["clean"]:
        seat = winner(document)
        for kind, decision in (("load", decisions_of(document, seat)[-1]), ("illegal_move", -1), ("time_budget", -1)):
            forged = copy.deepcopy(document)
            claim_forfeit(forged, seat, kind, decision)
            yield f"the winner forfeits by {kind} at decision {decision}", document, forged
        forged = copy.deepcopy(document)
        claim_forfeit(forged, seat, "startup_failed", -1)
        yield "the winner's start-up failed", document, forged
        if document["meta"]["game"] == 0:
            forged = copy.deepcopy(document)
            claim_forfeit(forged, seat, "stopped", -1)
            yield "the winner stopped in the match's first game", document, forged


def forfeit_dropped(corpus: dict[str, list[dict[str, Any]]]) -> Iterator[Forgery]:
    """A real forfeit removed with its failure: the stand-in's moves passed off as the seat's own."""
    for document in corpus["with forfeits"]:
        forged = copy.deepcopy(document)
        forged.update(forfeits=[], illegal_actions=[], ranks=ranks_with_forfeits(forged["scores"]))
        forged["meta"]["failures"] = []
        yield "its forfeit removed", document, forged


def moves_agree(document: dict[str, Any]) -> bool:
    """Independently of the engine's checks: replaying the game with stand_in_action drawn from
    the replay's stand-in stream (random.Random(seed), or for "uniform-random-keyed" the seed
    keyed through SHA-256) at every decision of a forfeited seat from its failure on, is every
    such move the one recorded? When it is, the moves cannot contradict the forfeits claimed."""
    failures = {failure["seat"]: failure["decision"] for failure in document["meta"]["failures"]}
    seed = document["seed"]
    if document["stand_in"] == "uniform-random-keyed":
        seed = int.from_bytes(hashlib.sha256(f"lineit-stand-in:{seed}".encode()).digest()[:8], "big")
    generator = random.Random(seed)
    state = new_game(document["num_players"], document["ruleset"], deck=document["deck"])
    for number, (seat, action) in enumerate(document["actions"]):
        legal = state.legal_actions()
        if seat in failures and number >= failures[seat] and stand_in_action(generator, legal) != action:
            return False
        state.apply(action)
    return True


def stand_in_run_is_long(genuine: dict[str, Any], stop: int | None = None) -> bool:
    """Whether the genuine forfeit's stand-in moves, from its failure to ``stop`` (the end),
    hold more than EVIDENCE_BITS bits: the product of their numbers of legal actions."""
    (failure,) = genuine["meta"]["failures"]
    state = new_game(genuine["num_players"], genuine["ruleset"], deck=genuine["deck"])
    evidence = 1
    for number, (seat, action) in enumerate(genuine["actions"][:stop]):
        if seat == failure["seat"] and number >= failure["decision"]:
            evidence *= len(state.legal_actions())
        state.apply(action)
    return evidence > 2**EVIDENCE_BITS


def moved_beyond_doubt(genuine: dict[str, Any], forged: dict[str, Any]) -> bool:
    """The moved forfeit's real stand-in run, until the forged forfeit's stand-in draws too."""
    (claimed,) = forged["meta"]["failures"]
    (failure,) = genuine["meta"]["failures"]
    return claimed["decision"] > failure["decision"] and stand_in_run_is_long(genuine, claimed["decision"])


# class: (its forgeries, what the engine's refusal says, which of them the moves contradict)
CLASSES: dict[
    str, tuple[Callable[..., Iterator[Forgery]], tuple[str, ...], Callable[[dict[str, Any], dict[str, Any]], bool]]
] = {
    "a forfeit invented for the winner": (
        invented_for_the_winner,
        ("the stand-in plays for it",),
        lambda genuine, forged: not moves_agree(forged),
    ),
    "a real forfeit moved to another seat": (
        moved_to_another_seat,
        ("the stand-in plays for it", "was played by the stand-in from decision"),
        lambda genuine, forged: not moves_agree(forged) or moved_beyond_doubt(genuine, forged),
    ),
    "an unknown kind": (unknown_kind, ("an unknown kind, 'no-such-kind'",), lambda genuine, forged: True),
    "a mid-game stopped": (stopped_mid_game, ("stopped failure is at decision",), lambda genuine, forged: True),
    "a kind where it cannot happen": (
        kind_out_of_place,
        ("happens only before play", "happens only at a decision", "the platform's fault", "stopped in game 0"),
        lambda genuine, forged: True,
    ),
    "a forfeit dropped": (
        forfeit_dropped,
        ("was played by the stand-in from decision",),
        lambda genuine, forged: stand_in_run_is_long(genuine),
    ),
}


@pytest.mark.parametrize("name", list(CLASSES))
def test_the_engine_refuses_every_forgery_the_moves_contradict_and_the_signature_every_one(
    corpus: dict[str, list[dict[str, Any]]], key: Ed25519PrivateKey, name: str
) -> None:
    forgeries, reasons, contradicted = CLASSES[name]
    refused = must = total = 0
    for what, genuine, forged in forgeries(corpus):
        total += 1
        must += contradicted(genuine, forged)
        verdict = verify_replay(forged)
        if verdict.ok:
            assert not contradicted(genuine, forged), f"{what}: verified, though the moves contradict it"
        else:
            refused += 1
            assert any(reason in verdict.message for reason in reasons), (what, verdict.message)
        # The forger has no key: the forgery keeps the platform's signature of the genuine replay.
        forged["signature"] = sign_replay(genuine, key)["signature"]
        assert not check_signature(forged, key.public_key()).ok, what
    print(
        f"\n{name}: the engine refuses {refused} of {total} forgeries ({must} contradicted by the moves); the signature all"
    )
    assert total >= 10 and refused >= must > 0


def test_the_signature_refuses_an_edit_of_any_field(
    corpus: dict[str, list[dict[str, Any]]], key: Ed25519PrivateKey
) -> None:
    """An edit the engine cannot see (who played, the match's entrants) fails the signature too."""
    genuine = corpus["with forfeits"][0]
    signed = sign_replay(genuine, key)
    assert check_signature(signed, key.public_key()).ok
    edits: dict[str, Callable[[dict[str, Any]], None]] = {
        "players": lambda d: d["players"].reverse(),
        "meta.entrants": lambda d: d["meta"]["entrants"].reverse(),
        "meta.game": lambda d: d["meta"].update(game=d["meta"]["game"] + 1),
        "meta.deal": lambda d: d["meta"].update(deal=d["meta"]["deal"] + 1),
        "meta.failures kind": lambda d: d["meta"]["failures"][0].update(kind="timeout"),
        "a key added to meta": lambda d: d["meta"].update(note="hello"),
        "forfeits and ranks": lambda d: d.update(forfeits=[], ranks=ranks_with_forfeits(d["scores"])),
        "seed": lambda d: d.update(seed=None),
        "stand_in": lambda d: d.update(stand_in=None),
        "illegal_actions": lambda d: d["illegal_actions"].append([0, "close"]),
        "scores": lambda d: d["scores"].reverse(),
        "an action": lambda d: d["actions"].pop(),
        "deck": lambda d: d["deck"].reverse(),
        "format_version": lambda d: d.update(format_version=2),
        "rules_version": lambda d: d.update(rules_version="0.9"),
        "ruleset": lambda d: d.update(ruleset="bga"),
        "num_players": lambda d: d.update(num_players=3),
        "first_player": lambda d: d.update(first_player=1),
        "format": lambda d: d.update(format="other"),
        "a field added": lambda d: d.update(winner=0),
        "the key id": lambda d: d["signature"].update(key_id="0" * 16),
        "the signature's value": lambda d: d["signature"].update(value=d["signature"]["value"][::-1]),
        "the signature removed": lambda d: d.pop("signature"),
    }
    for field, edit in edits.items():
        forged = copy.deepcopy(signed)
        edit(forged)
        assert forged != signed and not check_signature(forged, key.public_key()).ok, field
