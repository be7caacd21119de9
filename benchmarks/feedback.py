"""How soon an author hears about a new version while the ladder keeps every worker busy.

    python benchmarks/feedback.py [--uploads 10] [--requests 10] [--workers 2]
    python benchmarks/feedback.py --placement [--warm-up 200]

On PostgreSQL and Redis, with real Celery workers and the sandbox, the same run measures two
layouts of the same number of worker processes (``--workers``):

* queues: what runplatform and docker-compose start (docs/platform.md, "Queues"): an interactive
  worker (-Q interactive), bulk workers (-Q interactive,bulk) and a housekeeping worker;
* one queue: every worker process on all three queues, taking turns between them, as if there
  were one queue (what the platform did before).

In each, slow ladder matches (the search bot against heuristic) are queued first and keep the bulk
processes busy; then uploads of new versions (each validated in the sandbox) and requested test
matches (greedy against random, 2 games) arrive one after the other. It prints, per layout, the
p50, p95 and worst time from upload to a validation result, and from a test match's request to
its first game starting (the match's ``started_at``). Goals: p95 at most 5 s and 10 s.

With --placement it measures instead how long a new version of built-in speed takes, from its
upload, to a 95% rating interval of +-PLACEMENT_INTERVAL_ELO (50) through its placement games
(goal: at most 3 minutes), after a warm-up of rated games among the built-in bots.

Uses its own database (lineit_feedback, made anew) and Redis DB 7, unless DATABASE_URL and
CELERY_BROKER_URL say otherwise.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from scratch import scratch_platform

ROOT = Path(__file__).resolve().parent.parent

CELERY = str(Path(sys.executable).with_name("celery"))
BOT = "import random\n\nclass Bot:\n    def act(self, observation):\n        return random.choice(observation['legal_actions'])\n# {}\n"


def start_workers(layout: str, processes: int) -> list[subprocess.Popen[bytes]]:
    def worker(name: str, queues: str, concurrency: int) -> subprocess.Popen[bytes]:
        command = [CELERY, "-A", "lineit_platform.celery", "worker", "-l", "warning", "-c", str(concurrency)]
        command += ["-Q", queues, "-n", f"{name}{time.monotonic_ns()}@%h", "--without-gossip", "--without-mingle"]
        return subprocess.Popen(command, cwd=ROOT, start_new_session=True)

    if layout == "queues":
        bulk = max(1, processes - 1)
        return [
            worker("interactive", "interactive", 1),
            worker("bulk", "interactive,bulk", bulk),
            worker("housekeeping", "housekeeping", 1),
        ]
    return [worker("all", "interactive,bulk,housekeeping", processes)]


def stop(workers: list[subprocess.Popen[bytes]]) -> None:
    for process in workers:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in workers:
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def percentiles(values: list[float], give_up: float) -> str:
    if not values:
        return "none"
    if max(values) > give_up:
        return f"at least {give_up:.0f} s (waited behind the ladder; {len(values)} measured)"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):5.1f} s, p95 {p95:5.1f} s, worst {ordered[-1]:5.1f} s ({len(ordered)})"


def measure(layout: str, args: argparse.Namespace) -> tuple[list[float], list[float]]:
    import redis
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from bots.models import BotVersion
    from bots.services import bot_create, bot_version_upload, builtin_bots_register
    from tournaments.models import Match
    from tournaments.services.matches.states import match_cancel, match_schedule

    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    search, heuristic, greedy, random_bot = builtin_bots_register(names=("search", "heuristic", "greedy", "random"))
    author = get_user_model().objects.create_user(
        username=f"author-{layout.replace(' ', '-')}", password=secrets.token_urlsafe(12)
    )
    bot = bot_create(owner=author, name=f"fast-{layout.replace(' ', '-')}")
    # The ladder's backlog, queued before anything else: more slow matches than bulk processes.
    backlog = [
        match_schedule(versions=[search, heuristic], games=40, ranked=True, origin=Match.Origin.LADDER)
        for _ in range(args.workers + 2)
    ]
    workers = start_workers(layout, args.workers)
    validations: list[float] = []
    starts: list[float] = []
    try:
        deadline = time.monotonic() + 60
        while not Match.objects.filter(status=Match.Status.RUNNING).exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)  # every bulk process is in a slow match now
        for step in range(max(args.uploads, args.requests)):
            if step < args.uploads:
                sent = time.monotonic()
                version = bot_version_upload(
                    bot=bot, uploaded_by=author, filename="bot.py", content=BOT.format(f"{layout} {step}").encode()
                )
                while BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.VALIDATING).exists():
                    if time.monotonic() - sent > args.give_up:
                        break
                    time.sleep(0.05)
                validations.append(time.monotonic() - sent)
            if step < args.requests:
                sent = time.monotonic()
                match = match_schedule(versions=[greedy, random_bot], games=2, requested_by=author)
                while Match.objects.filter(pk=match.pk, started_at__isnull=True).exists():
                    if time.monotonic() - sent > args.give_up:
                        break
                    time.sleep(0.05)
                starts.append(time.monotonic() - sent)
            if max(validations + starts) > args.give_up:
                break  # the rest would wait as long: the layout's figures are at least this
    finally:
        for match in Match.objects.filter(pk__in=[m.pk for m in backlog], status__in=Match.PENDING):
            match_cancel(match=match)
        stop(workers)
    return validations, starts


def placement(args: argparse.Namespace) -> None:
    """From the upload of a bot of built-in speed to a 95% interval of +-PLACEMENT_INTERVAL_ELO:
    the built-in bots first play rated matches among themselves (the warm-up, not timed) and are
    fitted, as on a platform that has been running; then a new bot (the greedy bot's code, under
    another name) is uploaded and the clock runs until its placement ends."""
    import redis
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from bots.models import BotVersion
    from bots.services import bot_create, bot_version_upload, builtin_bots_register
    from tournaments.models import Match
    from tournaments.selectors.versions import placement_intervals
    from tournaments.services.matches.states import match_schedule
    from tournaments.services.ratings_fit import ratings_fit

    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    builtins = builtin_bots_register(names=("random", "greedy", "heuristic"))
    workers = start_workers("queues", args.workers)
    try:
        warm_up = [
            match_schedule(versions=[a, b], games=args.warm_up, ranked=True, origin=Match.Origin.LADDER)
            for index, a in enumerate(builtins)
            for b in builtins[index + 1 :]
        ]
        while Match.objects.filter(pk__in=[m.pk for m in warm_up], status__in=Match.PENDING).exists():
            time.sleep(0.5)
        ratings_fit(ruleset="standard")
        author = get_user_model().objects.create_user(username="newcomer", password=secrets.token_urlsafe(12))
        bot = bot_create(owner=author, name="newcomer")
        code = (ROOT / "lineit" / "builtin" / "greedy_bot.py").read_bytes() + b"\n# a newcomer\n"
        started = time.monotonic()
        version = bot_version_upload(bot=bot, uploaded_by=author, filename="bot.py", content=code)
        while time.monotonic() - started < args.placement_limit:
            row = BotVersion.objects.get(pk=version.pk)
            if row.status == BotVersion.Status.REJECTED or (row.placement_ended_at is not None):
                break
            time.sleep(0.5)
        elapsed = time.monotonic() - started
        row = BotVersion.objects.get(pk=version.pk)
        games = sum(
            Match.objects.filter(origin=Match.Origin.PLACEMENT, entrants__version=row).values_list("games", flat=True)
        )
        width = placement_intervals([row.pk]).get((row.pk, "standard"))
        state = "ended" if row.placement_ended_at else f"still playing after {args.placement_limit:.0f} s"
        print(
            f"Placement of a bot of built-in speed ({row.label}): {state}, {elapsed:.1f} s from its upload, "
            f"{games} placement games, 95% interval +-{width:.0f} Elo (goal: +-{settings.PLACEMENT_INTERVAL_ELO:.0f} "
            f"in at most 180 s)"
            if width is not None
            else f"Placement: {state}, {elapsed:.1f} s, {games} games, no interval"
        )
    finally:
        stop(workers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=10)
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2, help="worker processes that play matches (default 2)")
    parser.add_argument(
        "--give-up", type=float, default=90, help="seconds after which a wait is cut short and the layout ends"
    )
    parser.add_argument("--placement", action="store_true", help="measure a new version's placement instead")
    parser.add_argument("--warm-up", type=int, default=200, help="games of each built-in pairing before it")
    parser.add_argument("--placement-limit", type=float, default=600, help="seconds to wait for the placement")
    args = parser.parse_args()
    scratch_platform("lineit_feedback", redis_db=7, fresh=True)
    if args.placement:
        placement(args)
        return
    print(f"With the ladder's slow matches keeping the bulk processes busy ({args.workers} match processes):")
    for layout in ("queues", "one queue"):
        validations, starts = measure(layout, args)
        print(f"  {layout:9}  upload to validated:           {percentiles(validations, args.give_up)}")
        print(f"  {'':9}  test match request to started:  {percentiles(starts, args.give_up)}", flush=True)
    print("Goals: upload to validated p95 at most 5 s; test match request to first game p95 at most 10 s.")


if __name__ == "__main__":
    main()
