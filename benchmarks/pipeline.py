"""Matches per minute through the whole pipeline, against the same games in the sandbox alone.

    python benchmarks/pipeline.py [--matches 6] [--games 100]

Pipeline: match_schedule (PostgreSQL) -> Redis -> one Celery worker (concurrency 1) -> sandbox ->
match_record_result (PostgreSQL, replays, ratings). Alone: the same specs through the sandbox
runner in this process. Both use two random bots. Goal: the pipeline adds at most 30 %.

Uses its own database (lineit_bench, created if missing) and Redis DB 14, unless DATABASE_URL
and CELERY_BROKER_URL say otherwise.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from scratch import scratch_platform

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    scratch_platform("lineit_bench", redis_db=14)

    from bots.code_cache import version_source
    from bots.runner import sandbox_match_run
    from bots.services import builtin_bots_register
    from tournaments.models import Match
    from tournaments.services.matches.states import match_schedule, match_spec

    (random_bot,) = builtin_bots_register(names=("random",))
    versions = [random_bot, random_bot]

    # Alone: engine + sandbox in this process.
    specs = [
        match_spec(
            Match(num_players=2, games=args.games, ruleset="standard", seed=s, rotate_seats=True, duplicate_deals=True)
        )
        for s in range(args.matches)
    ]
    started = time.perf_counter()
    for spec in specs:
        sandbox_match_run(spec=spec, sources=[version_source(v) for v in versions])
    alone = time.perf_counter() - started

    # Pipeline: a real worker.
    worker = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("celery")),
            "-A",
            "lineit_platform.celery",
            "worker",
            "-c",
            "1",
            "-l",
            "warning",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-Q",
            "interactive,bulk,housekeeping",
        ],
        cwd=ROOT,
    )
    try:
        time.sleep(3)  # let the worker connect and detect its sandbox tier before the clock starts
        started = time.perf_counter()
        ids = [match_schedule(versions=versions, games=args.games, seed=s).pk for s in range(args.matches)]
        while Match.objects.filter(pk__in=ids, status__in=Match.PENDING).exists():
            time.sleep(0.05)
        pipeline = time.perf_counter() - started
    finally:
        worker.terminate()
        worker.wait(30)
    statuses = set(Match.objects.filter(pk__in=ids).values_list("status", flat=True))
    per_minute = lambda seconds: args.matches / seconds * 60  # noqa: E731
    overhead = (pipeline / alone - 1) * 100
    print(f"{args.matches} matches of {args.games} games, two random bots ({statuses})")
    print(f"  engine + sandbox alone: {per_minute(alone):6.1f} matches/min ({alone:.2f} s)")
    print(f"  whole pipeline:         {per_minute(pipeline):6.1f} matches/min ({pipeline:.2f} s)")
    print(f"  pipeline overhead: {overhead:+.1f} % (goal: at most +30 %)")


if __name__ == "__main__":
    main()
