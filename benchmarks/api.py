"""API latency under load: leaderboard, match list and match detail over HTTP against gunicorn.

    python benchmarks/api.py [--clients 8] [--seconds 20] [--workers 4] [--refill]

Fills its own PostgreSQL database (lineit_bench_api, unless DATABASE_URL says otherwise) with 200
bots, 1,000 versions, their ratings and 100,000 finished matches (entrants, two games each, a
failure in one game of twenty), using COPY; a filled database is reused unless --refill. Then it
starts gunicorn (DEBUG off, persistent database connections) and drives it with concurrent
clients, each a thread with its own keep-alive HTTP connection, picking at random among:

  leaderboard    GET /api/leaderboard/?ruleset=standard&page=<1..10>
  match list     GET /api/matches/ with no filter, ?bot=, ?version=, ?status=&ranked=, or a cursor page
  match detail   GET /api/matches/<random id>/

It prints p50/p95/p99 latency per endpoint and overall, and requests per second. Goal: p95 under
50 ms with 8 clients.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/lineit_bench_api")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineit_platform.settings")
os.environ.setdefault("VAR_DIR", "/tmp/lineit-bench-api-var")
sys.path.insert(0, str(ROOT))

BOTS, VERSIONS_PER_BOT, MATCHES, GAMES_PER_MATCH = 200, 5, 100_000, 2


def ensure_database(drop: bool) -> None:
    import psycopg

    from lineit_platform.settings import database_from_url

    config = database_from_url(os.environ["DATABASE_URL"])
    with psycopg.connect(
        host=config["HOST"], port=config["PORT"] or 5432, user=config["USER"], dbname="postgres", autocommit=True
    ) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [config["NAME"]]).fetchone()
        if exists and drop:
            connection.execute(f'DROP DATABASE "{config["NAME"]}" WITH (FORCE)')
            exists = None
        if not exists:
            connection.execute(f'CREATE DATABASE "{config["NAME"]}"')


def fill() -> None:
    """Bots and versions with the ORM (small), matches and their rows with COPY (large)."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from bots.models import Bot, BotVersion
    from lineit_platform.engine import RULES_VERSION
    from tournaments.models import Match, Rating, compress_replay

    if Match.objects.count() >= MATCHES:
        print(f"reusing the filled database ({Match.objects.count()} matches)")
        return
    started = time.perf_counter()
    rng = random.Random(1)
    with transaction.atomic():
        users = get_user_model().objects.bulk_create(get_user_model()(username=f"author{n}") for n in range(50))
        bots = Bot.objects.bulk_create(Bot(owner=users[n % 50], name=f"bench-bot-{n}") for n in range(BOTS))
        versions = BotVersion.objects.bulk_create(
            BotVersion(
                bot=bot,
                number=number,
                kind="py",
                original_name="bot.py",
                path=f"versions/bench{bot.pk}-{number}/bot.py",
                sha256=f"{bot.pk:032x}{number:032x}",
                size=100,
                status="active" if number == VERSIONS_PER_BOT else "retired",
                uploaded_by_id=bot.owner_id,
            )
            for bot in bots
            for number in range(1, VERSIONS_PER_BOT + 1)
        )
        Rating.objects.bulk_create(
            Rating(
                version=v,
                ruleset="standard",
                rules_version=RULES_VERSION,
                rating=rng.gauss(1500, 150),
                games=rng.randint(0, 400),
            )
            for v in versions
        )
        version_ids = [v.pk for v in versions]
        replay = compress_replay({"format": "lineit-replay", "note": "benchmark stand-in"})
        now = datetime.now(UTC)
        with connection.cursor() as cursor:
            _copy_matches(cursor, rng, version_ids, replay, now, RULES_VERSION)
            cursor.execute("SELECT setval(pg_get_serial_sequence('tournaments_match', 'id'), %s)", [MATCHES])
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence('tournaments_game', 'id'), (SELECT max(id) FROM tournaments_game))"
            )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"filled {MATCHES} matches in {time.perf_counter() - started:.1f} s")


def _copy_matches(
    cursor: Any, rng: random.Random, version_ids: list[int], replay: bytes, now: datetime, rules_version: str
) -> None:
    limits = json.dumps({"move_seconds": 0.5})
    game_id = 0
    with cursor.copy(
        "COPY tournaments_match (id, ruleset, rules_version, num_players, games, duplicate_deals, rotate_seats, seed,"
        " ranked, limits, origin, status, attempts, max_attempts, worker, sandbox_tier, error, games_played,"
        " created_at, queued_at, started_at, finished_at, rated_at) FROM STDIN"
    ) as copy:
        for match_id in range(1, MATCHES + 1):
            at = now - timedelta(seconds=(MATCHES - match_id) * 30)
            players = 2 + match_id % 3
            ranked = match_id % 4 != 0
            copy.write_row(
                (
                    match_id,
                    "standard",
                    rules_version,
                    players,
                    GAMES_PER_MATCH,
                    True,
                    True,
                    match_id,
                    ranked,
                    limits,
                    "ladder" if ranked else "manual",
                    "finished",
                    1,
                    3,
                    "bench",
                    "bubblewrap",
                    "",
                    GAMES_PER_MATCH,
                    at,
                    at,
                    at,
                    at + timedelta(seconds=20),
                    at + timedelta(seconds=21) if ranked else None,
                )
            )
    seatings: dict[int, list[int]] = {}
    with cursor.copy(
        "COPY tournaments_matchentrant (match_id, index, version_id, total_score, mean_rank, wins, forfeits) FROM STDIN"
    ) as copy:
        for match_id in range(1, MATCHES + 1):
            players = 2 + match_id % 3
            seated = rng.sample(version_ids, players)
            seatings[match_id] = seated
            for index, version_id in enumerate(seated):
                copy.write_row((match_id, index, version_id, rng.randint(0, 60), rng.uniform(1, players), 1, 0))
    failures = []
    with cursor.copy(
        "COPY tournaments_game (id, match_id, index, deal, deck_seed, seats, scores, ranks, forfeits, timings, replay)"
        " FROM STDIN"
    ) as copy:
        for match_id in range(1, MATCHES + 1):
            players = len(seatings[match_id])
            for index in range(GAMES_PER_MATCH):
                game_id += 1
                seats = [(seat + index) % players for seat in range(players)]
                scores = [rng.randint(0, 30) for _ in range(players)]
                ranks = [sorted(scores, reverse=True).index(score) + 1 for score in scores]
                timing = [{"decisions": 20, "total_seconds": 0.1, "max_seconds": 0.01}] * players
                copy.write_row(
                    (
                        game_id,
                        match_id,
                        index,
                        0,
                        match_id,
                        json.dumps(seats),
                        json.dumps(scores),
                        json.dumps(ranks),
                        "[]",
                        json.dumps(timing),
                        replay,
                    )
                )
                if game_id % 20 == 0:
                    failures.append((game_id, match_id, seatings[match_id][seats[0]]))
    with cursor.copy(
        "COPY tournaments_gamefailure (game_id, match_id, version_id, seat, kind, message, decision, stderr_tail)"
        " FROM STDIN"
    ) as copy:
        for game, match, version in failures:
            copy.write_row((game, match, version, 0, "timeout", "no answer in 5.0 s", 12, "Traceback: stderr tail"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_gunicorn(port: int, workers: int) -> subprocess.Popen[bytes]:
    environment = os.environ | {"DEBUG": "false", "DATABASE_CONN_MAX_AGE": "600", "LOG_LEVEL": "WARNING"}
    process = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "lineit_platform.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--worker-class",
            "gthread",
            "--threads",
            "2",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=environment,
        start_new_session=True,
    )
    give_up = time.monotonic() + 30
    while time.monotonic() < give_up:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            time.sleep(0.2)
    stop(process)
    raise SystemExit("gunicorn did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


class Workload:
    def __init__(self, bot_ids: list[int], version_ids: list[int], cursors: list[str]) -> None:
        self.bot_ids, self.version_ids, self.cursors = bot_ids, version_ids, cursors

    def pick(self, rng: random.Random) -> tuple[str, str]:
        roll = rng.random()
        if roll < 1 / 3:
            return "leaderboard", f"/api/leaderboard/?ruleset=standard&page={rng.randint(1, 10)}"
        if roll < 2 / 3:
            choice = rng.randrange(5)
            query = [
                "",
                f"?bot={rng.choice(self.bot_ids)}",
                f"?version={rng.choice(self.version_ids)}",
                "?status=finished&ranked=true",
                f"?cursor={rng.choice(self.cursors)}" if self.cursors else "",
            ][choice]
            return "match list", f"/api/matches/{query}"
        return "match detail", f"/api/matches/{rng.randint(1, MATCHES)}/"


def client(port: int, workload: Workload, until: float, seed: int, results: list[tuple[str, float, int]]) -> None:
    rng = random.Random(seed)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Accept": "application/json", "Connection": "keep-alive"}
    while time.monotonic() < until:
        name, path = workload.pick(rng)
        started = time.perf_counter()
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException):
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            status = 0
        results.append((name, (time.perf_counter() - started) * 1000, status))
    connection.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def report(results: list[tuple[str, float, int]], seconds: float) -> bool:
    bad = [r for r in results if r[2] != 200]
    print(f"\n{len(results)} requests in {seconds:.1f} s: {len(results) / seconds:.0f} requests/s, {len(bad)} not 200")
    print(f"{'endpoint':<14}{'n':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    groups = sorted({name for name, _, _ in results}) + ["all"]
    p95_all = 0.0
    for group in groups:
        times = [ms for name, ms, _ in results if group in ("all", name)]
        p95 = percentile(times, 0.95)
        p95_all = p95 if group == "all" else p95_all
        print(
            f"{group:<14}{len(times):>7}{statistics.median(times):>9.1f}{p95:>9.1f}"
            f"{percentile(times, 0.99):>9.1f}{max(times):>9.1f}"
        )
    ok = p95_all < 50 and not bad
    print(f"goal p95 < 50 ms: {'met' if ok else 'NOT met'}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes (2 threads each)")
    parser.add_argument("--refill", action="store_true", help="drop and refill the database")
    args = parser.parse_args()
    ensure_database(drop=args.refill)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    fill()
    from bots.models import Bot, BotVersion

    bot_ids = list(Bot.objects.values_list("pk", flat=True))
    version_ids = list(BotVersion.objects.values_list("pk", flat=True))
    port = free_port()
    server = start_gunicorn(port, args.workers)
    try:
        cursors = _cursors(port)
        workload = Workload(bot_ids, version_ids, cursors)
        warm: list[tuple[str, float, int]] = []
        _run(port, workload, args.clients, args.warmup, warm)
        results: list[tuple[str, float, int]] = []
        elapsed = _run(port, workload, args.clients, args.seconds, results)
    finally:
        stop(server)
    print(f"gunicorn: {args.workers} workers x 2 threads; {args.clients} clients; {os.cpu_count()} CPUs")
    sys.exit(0 if report(results, elapsed) else 1)


def _cursors(port: int) -> list[str]:
    """A few real cursors, for pages deep in the match list."""
    from urllib.parse import parse_qs, urlsplit

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    cursors, path = [], "/api/matches/?page_size=100"
    for _ in range(20):
        connection.request("GET", path, headers={"Accept": "application/json"})
        body = json.loads(connection.getresponse().read())
        if not body.get("next"):
            break
        cursor = parse_qs(urlsplit(body["next"]).query)["cursor"][0]
        cursors.append(cursor)
        path = f"/api/matches/?page_size=100&cursor={cursor}"
    connection.close()
    return cursors


def _run(port: int, workload: Workload, clients: int, seconds: float, results: list[tuple[str, float, int]]) -> float:
    started = time.monotonic()
    until = started + seconds
    threads = [threading.Thread(target=client, args=(port, workload, until, seed, results)) for seed in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.monotonic() - started


if __name__ == "__main__":
    main()
