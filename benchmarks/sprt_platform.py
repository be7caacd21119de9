"""Time to verdict of a new version's SPRT on the platform, end to end.

    python benchmarks/sprt_platform.py [--runs 1] [--concurrency 2] [--batch 20] [--max-games 2000]

A user's bot gets v1 = the built-in greedy bot's code and then v2 = the built-in heuristic's, both
uploaded (bot_version_upload). A real Celery worker (-Q interactive,bulk,housekeeping) on
PostgreSQL and Redis validates v2, which starts its SPRT against v1 (the hook in
bot_version_activate), and plays the batches of deal pairs on the interactive queue until the
kit's sequential test decides (default bounds: elo0 0, elo1 10, alpha = beta = 0.05). Printed per
run: the time from v2's upload to its activation and from its activation to the verdict, the
games and pairs it took, the verdict and the Elo estimate. The ladder is off (LADDER_ENABLED=0):
nothing but the SPRT competes for the worker.

Uses a scratch database (lineit_bench_sprt, created if missing and emptied of bots first) and
Redis DB 13, unless DATABASE_URL and CELERY_BROKER_URL say otherwise. Part of the figures of
benchmarks/feedback.py ("the SPRT of the built-in heuristic against greedy on the platform").
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from scratch import scratch_platform

ROOT = Path(__file__).resolve().parent.parent
os.environ["LADDER_ENABLED"] = "0"


def start_worker(concurrency: int, batch: int, max_games: int) -> subprocess.Popen[bytes]:
    environment = os.environ | {"SPRT_BATCH_GAMES": str(batch), "SPRT_MAX_GAMES": str(max_games)}
    command = [str(Path(sys.executable).with_name("celery")), "-A", "lineit_platform.celery", "worker"]
    command += ["-c", str(concurrency), "-l", "warning", "--without-gossip", "--without-mingle"]
    command += ["--without-heartbeat", "-Q", "interactive,bulk,housekeeping"]
    return subprocess.Popen(command, cwd=ROOT, env=environment)


def one_run(run: int, timeout: float) -> None:
    from django.contrib.auth import get_user_model

    from bots.models import BotVersion
    from bots.services import bot_create, bot_version_upload
    from tournaments.models import SprtTest

    builtin = ROOT / "lineit" / "builtin"
    user, _ = get_user_model().objects.get_or_create(username="bench")
    bot = bot_create(owner=user, name=f"bench-sprt-{run}-{time.time_ns() % 10**9}")

    def wait(condition: object, what: str) -> None:
        give_up = time.monotonic() + timeout
        while not condition():  # type: ignore[operator]
            if time.monotonic() > give_up:
                raise SystemExit(f"timed out waiting for {what}")
            time.sleep(0.05)

    v1 = bot_version_upload(
        bot=bot, uploaded_by=user, filename="bot.py", content=(builtin / "greedy_bot.py").read_bytes()
    )
    wait(lambda: BotVersion.objects.get(pk=v1.pk).status != "validating", "v1's validation")
    uploaded = time.time()
    v2 = bot_version_upload(
        bot=bot, uploaded_by=user, filename="bot.py", content=(builtin / "heuristic_bot.py").read_bytes()
    )
    wait(lambda: SprtTest.objects.filter(new_version=v2).exclude(status="running").exists(), "the verdict")
    test = SprtTest.objects.select_related("new_version").get(new_version=v2)
    activated = test.new_version.validated_at
    assert activated is not None and test.finished_at is not None
    to_active = activated.timestamp() - uploaded
    to_verdict = (test.finished_at - activated).total_seconds()
    elo = "inf" if test.elo is None else f"{test.elo:+.0f}"
    low = "-inf" if test.elo_low is None else f"{test.elo_low:+.0f}"
    high = "+inf" if test.elo_high is None else f"{test.elo_high:+.0f}"
    print(
        f"run {run}: upload -> active {to_active:.2f} s; active -> verdict {to_verdict:.1f} s; "
        f"{test.games} games ({test.batches} batches, {test.pairs} pairs {test.pair_counts}); "
        f"verdict {test.status}{': ' + test.reason if test.reason else ''}; Elo {elo} (95%: {low} to {high}), "
        f"LLR {test.llr:.2f}; forfeits new {test.failures_new}, old {test.failures_old}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes (default 2: this machine)")
    parser.add_argument("--batch", type=int, default=20, help="SPRT_BATCH_GAMES (default 20)")
    parser.add_argument("--max-games", type=int, default=2000, help="SPRT_MAX_GAMES (default 2000)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for a verdict")
    args = parser.parse_args()
    scratch_platform("lineit_bench_sprt", redis_db=13)
    import redis
    from django.conf import settings

    worker = start_worker(args.concurrency, args.batch, args.max_games)
    try:
        time.sleep(3)  # let the worker connect and find its sandbox tier before the clock starts
        print(
            f"SPRT heuristic (v2) against greedy (v1) on the platform: worker -c {args.concurrency}, "
            f"batches of {args.batch} games, cap {args.max_games}, elo0 0, elo1 10, alpha = beta = 0.05",
            flush=True,
        )
        for run in range(args.runs):
            one_run(run, args.timeout)
    finally:
        worker.terminate()
        worker.wait(30)
        redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


if __name__ == "__main__":
    main()
