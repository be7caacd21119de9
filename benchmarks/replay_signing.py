"""What signing a replay as it is served costs (lineit_platform/replay_signing.py): for games of
2, 3 and 5 players of the built-in random bot, the median of 7 runs of 500 of each step, in
microseconds: the canonical form, the upgrade and the signature together (what a served replay
pays), and checking a signature (what ``lineit verify --key`` pays per file). No database.

    .venv/bin/python benchmarks/replay_signing.py
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from functools import partial

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import resolve_bot
from lineit.engine.replay import upgrade_replay
from lineit.replay_signature import canonical_bytes, check_signature, sign_replay

RUNS, TIMES = 7, 500


def microseconds(step: Callable[[], object]) -> float:
    runs = []
    for _ in range(RUNS):
        started = time.perf_counter()
        for _ in range(TIMES):
            step()
        runs.append((time.perf_counter() - started) / TIMES * 1e6)
    return statistics.median(runs)


def main() -> None:
    key = Ed25519PrivateKey.generate()
    print(f"{'players':>7} {'bytes':>6} {'canonical':>10} {'served':>8} {'check':>8}   (microseconds a replay)")
    for players in (2, 3, 5):
        spec = MatchSpec(num_players=players, games=1, seed=3)
        result = run_match(spec, [InProcessPlayer(resolve_bot("random")) for _ in range(players)])
        document = json.loads(json.dumps(result.games[0].replay))
        signed = sign_replay(document, key)
        canonical = microseconds(partial(canonical_bytes, document))
        served = microseconds(lambda document=document: sign_replay(upgrade_replay(document), key))
        checked = microseconds(partial(check_signature, signed, key.public_key()))
        size = len(canonical_bytes(document))
        print(f"{players:>7} {size:>6} {canonical:>10.0f} {served:>8.0f} {checked:>8.0f}")


if __name__ == "__main__":
    main()
