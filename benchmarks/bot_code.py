"""What getting a version's code costs a match: version_source(version) through the bot storage and the
worker's cache, against the shortest match it starts.

    python benchmarks/bot_code.py [--repeat 100]

Per call of ``version_source(version)`` (each match and validation calls it once per entrant): the
warm cache (the copy's sha256 checked), for a small bot and a 1 MB one; a cold cache filled from
the file under MEDIA_ROOT, and from the database's copy (a host without the file: a worker on
another host); a built-in bot (its version hash from the code this host ships). Against: one
2-game match of two random bots in the sandbox, the shortest match the platform plays.

Uses its own database (lineit_bench_code, created if missing) and Redis DB 11, unless
DATABASE_URL and CELERY_BROKER_URL say otherwise.
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from scratch import scratch_platform

SMALL = b"def act(observation):\n    return observation['legal_actions'][0]\n"


def median_ms(call: Callable[[], object], repeat: int, before: Callable[[], object] | None = None) -> float:
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    scratch_platform("lineit_bench_code", redis_db=11)

    from django.conf import settings

    from bots.code_cache import version_source
    from bots.runner import sandbox_match_run
    from bots.services import bot_create, bot_version_upload, builtin_bots_register, system_user
    from lineit.botkit.schedule import MatchSpec

    settings.BOT_CODE_CACHE_DIR = Path(tempfile.mkdtemp(prefix="lineit-bench-cache-"))
    owner = system_user()
    tag = secrets.token_hex(4)
    large = SMALL + b"# padding\n" * ((1_000_000 - len(SMALL)) // 10)
    versions = {}
    for label, code in (("small", SMALL + f"# {tag}\n".encode()), ("1 MB", large + f"# {tag}\n".encode())):
        bot = bot_create(owner=owner, name=f"bench-{label.replace(' ', '')}-{tag}")
        versions[label] = bot_version_upload(
            bot=bot, uploaded_by=owner, filename="bot.py", content=code, validate=False
        )
    (search,) = builtin_bots_register(names=("search",))
    (random_bot,) = builtin_bots_register(names=("random",))

    def forget(version: object) -> Callable[[], None]:
        return lambda: shutil.rmtree(Path(settings.BOT_CODE_CACHE_DIR) / version.sha256, ignore_errors=True)  # type: ignore[attr-defined]

    rows = []
    for label, version in versions.items():
        local = Path(settings.MEDIA_ROOT) / version.path
        rows.append((f"{label} bot, warm cache (sha256 check)", median_ms(version.source, args.repeat)))
        rows.append(
            (f"{label} bot, cold cache, from MEDIA_ROOT", median_ms(version.source, args.repeat, forget(version)))
        )
        kept = local.read_bytes()
        local.unlink()
        try:
            rows.append(
                (f"{label} bot, cold cache, from the database", median_ms(version.source, args.repeat, forget(version)))
            )
        finally:
            local.write_bytes(kept)
    rows.append(("built-in search (version hash of the shipped code)", median_ms(search.source, args.repeat)))

    spec = MatchSpec(num_players=2, games=2, seed=1)
    sources = [version_source(random_bot), version_source(random_bot)]
    match_ms = median_ms(lambda: sandbox_match_run(spec=spec, sources=sources), 3)
    print(f"one 2-game match of two random bots in the sandbox: {match_ms:.1f} ms (median of 3)")
    print(f"version_source(version), median of {args.repeat}:")
    for label, ms in rows:
        print(f"  {label:<52} {ms:8.3f} ms  {ms / match_ms * 100:6.2f}% of that match")
    shutil.rmtree(settings.BOT_CODE_CACHE_DIR, ignore_errors=True)


if __name__ == "__main__":
    main()
