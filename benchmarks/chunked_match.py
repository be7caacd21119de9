"""One long match on one worker process against two, in chunks and in one piece, and the games
played again after a worker process is killed near the end.

    .venv/bin/python benchmarks/chunked_match.py [--games 1000] [--chunk 100]

Uses a scratch database (lineit_bench_chunks) and Redis database 8, and real Celery workers
(subprocesses) on them, like the platform's. Two copies of a built-in (``--bot``) play ``--games`` games
(duplicate deals) with short time limits. Each layout plays the same match (same seed):

* chunks of ``--chunk`` games on 1 worker process, then on 2 (the speed-up is the ratio);
* one chunk of all the games (MATCH_CHUNK_GAMES = the games: a match in one piece, as before
  chunks) on 2 processes, which can use only one;
* the kill: one process plays the match, and once 95% of the games have ended (the middle of
  the last chunk, with the defaults) the process playing it is killed (SIGKILL). The games played again are the killed attempt's games that had
  ended, which are lost: its chunk's, or every game of a match in one piece.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scratch import scratch_platform

ROOT = Path(__file__).resolve().parent.parent
os.environ.update(
    {
        "LADDER_ENABLED": "0",
        "MATCH_TIME_LIMIT_SECONDS": str(48 * 3600),  # the duration check of 1,000 games of the limits below
        "MATCH_RETRY_DELAY_SECONDS": "1",
    }
)
LIMITS = {"move_seconds": 0.05, "bank_seconds": 1, "move_timeout_seconds": 0.5, "startup_seconds": 5}


def start_worker(concurrency: int, chunk: int) -> subprocess.Popen[bytes]:
    environment = os.environ | {"MATCH_CHUNK_GAMES": str(chunk)}
    command = [str(Path(sys.executable).with_name("celery")), "-A", "lineit_platform.celery", "worker"]
    command += ["-c", str(concurrency), "-l", "warning", "--without-gossip", "--without-mingle"]
    command += ["--without-heartbeat", "-Q", "interactive,bulk,housekeeping", "-n", f"bench{time.monotonic_ns()}@%h"]
    return subprocess.Popen(command, cwd=ROOT, env=environment)


def stop(worker: subprocess.Popen[bytes]) -> None:
    worker.terminate()
    try:
        worker.wait(60)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


def wait(condition: object, what: str, timeout: float = 3600) -> None:
    give_up = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > give_up:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.05)


def one_match(versions: list, games: int, *, concurrency: int, chunk: int, kill_at: float | None = None) -> dict:  # type: ignore[type-arg]
    from tournaments.models import LiveGame, Match, MatchChunk
    from tournaments.services.matches.states import match_schedule

    worker = start_worker(concurrency, chunk)
    try:
        time.sleep(4)  # the worker connects and finds its sandbox tier before the clock starts
        started = time.monotonic()
        match = match_schedule(versions=versions, games=games, seed=2026, limits=LIMITS)
        lost = 0
        if kill_at is not None:
            wait(lambda: LiveGame.objects.filter(match=match).count() >= kill_at * games, "the games before the kill")
            running = MatchChunk.objects.filter(match=match, status="running").first()
            if running is not None:
                ended = LiveGame.objects.filter(match=match, index__gte=running.first, index__lt=running.stop).count()
                os.kill(int(running.worker.rpartition(":")[2]), signal.SIGKILL)
                lost = ended
        wait(lambda: Match.objects.get(pk=match.pk).status not in Match.PENDING, "the match")
        seconds = time.monotonic() - started
        match.refresh_from_db()
        chunks = list(MatchChunk.objects.filter(match=match))
        return {
            "status": match.status,
            "seconds": seconds,
            "workers": len({c.worker for c in chunks}),
            "chunks": len(chunks),
            "replays": sum(c.attempts - 1 for c in chunks),
            "lost": lost,
        }
    finally:
        stop(worker)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--chunk", type=int, default=100)
    parser.add_argument("--bot", default="random", help="the built-in both seats play (default random)")
    args = parser.parse_args()
    scratch_platform("lineit_bench_chunks", redis_db=8, fresh=True)
    from django.contrib.auth import get_user_model

    from bots.models import BotVersion
    from bots.services import bot_create, bot_version_upload

    user = get_user_model().objects.create(username="bench")
    code = (ROOT / "lineit" / "builtin" / f"{args.bot}_bot.py").read_bytes()
    versions = []
    for name in ("north", "south"):
        bot = bot_create(owner=user, name=name)
        version = bot_version_upload(bot=bot, uploaded_by=user, filename="bot.py", content=code, validate=False)
        BotVersion.objects.filter(pk=version.pk).update(status="active")
        versions.append(BotVersion.objects.get(pk=version.pk))
    print(
        f"{args.games} games of two {args.bot} bots (duplicate deals), chunks of {args.chunk}; load {os.getloadavg()[0]:.1f}"
    )
    rows = [
        ("chunks, 1 worker process", dict(concurrency=1, chunk=args.chunk)),
        ("chunks, 2 worker processes", dict(concurrency=2, chunk=args.chunk)),
        ("one piece, 2 worker processes", dict(concurrency=2, chunk=args.games)),
        ("chunks, killed at 95%", dict(concurrency=1, chunk=args.chunk, kill_at=0.95)),
        ("one piece, killed at 95%", dict(concurrency=1, chunk=args.games, kill_at=0.95)),
    ]
    times: dict[str, float] = {}
    for label, options in rows:
        figures = one_match(versions, args.games, **options)  # type: ignore[arg-type]
        times[label] = figures["seconds"]
        print(
            f"{label:32} {figures['status']:8} {figures['seconds']:7.1f} s  {figures['chunks']:3} chunks on "
            f"{figures['workers']} processes; chunks played again {figures['replays']}, games lost to the kill "
            f"{figures['lost']}",
            flush=True,
        )
    one, two = times["chunks, 1 worker process"], times["chunks, 2 worker processes"]
    print(
        f"2 processes against 1, in chunks: {one / two:.2f}x faster; in one piece: {one / times['one piece, 2 worker processes']:.2f}x"
    )


if __name__ == "__main__":
    main()
