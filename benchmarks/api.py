"""API latency under load: leaderboard, match list and match detail over HTTP against gunicorn.

    python benchmarks/api.py [--clients 8] [--seconds 20] [--workers 3] [--threads 3] [--refill]

Fills its own PostgreSQL database (lineit_bench_api, unless DATABASE_URL says otherwise) with 200
bots, 1,000 versions, their ratings and 100,000 finished matches (entrants, two games each, a
failure in one game of twenty), using COPY; a filled database is reused unless --refill. Then it
starts gunicorn (gthread, DEBUG off, persistent database connections) and drives it with wrk
(``apt-get install wrk``: a C load generator, so the clients do not eat the server's CPU), 8
keep-alive connections, each request a random pick among:

  leaderboard    GET /api/leaderboard/?ruleset=standard&page=<1..10>
  match list     GET /api/matches/ with no filter, ?bot=, ?version=, ?status=&ranked=, or a cursor page
  match detail   GET /api/matches/<random id>/

Two servers, one after the other: first with the response cache off (API_RESPONSE_CACHE_SECONDS=0,
the "(cold)" runs: every request reads the database and writes its JSON), then as deployed (the
leaderboard's ten pages and the match details already served come from the cache; details are
drawn from 100,000 ids, so most still miss). On each, one run per endpoint, then one of the mix.
Each prints p50/p95/p99 latency, requests per second, and CPU milliseconds per request spent by
gunicorn, by PostgreSQL and by the client (read from /proc). Without wrk, Python client threads
do the same (and take CPU from the server). Goal: p95 under 50 ms with 8 clients for the mix,
the cached one (the last line).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
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

    from lineit_platform.database_url import database_from_url

    config = database_from_url(os.environ["DATABASE_URL"], default_sqlite=Path("unused.sqlite3"))
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
    from lineit.engine import RULES_VERSION
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
        # As autovacuum leaves a live database: statistics, and the visibility map without which
        # every index-only scan also reads the table (autovacuum may be off where this runs).
        cursor.execute("VACUUM ANALYZE")
    print(f"filled {MATCHES} matches in {time.perf_counter() - started:.1f} s")


def _copy_matches(
    cursor: Any, rng: random.Random, version_ids: list[int], replay: bytes, now: datetime, rules_version: str
) -> None:
    limits = json.dumps({"move_seconds": 0.5})
    game_id = 0
    # Each match's entrants, drawn first: the match row holds their summary (Match.entrant_summary).
    seatings: dict[int, list[tuple[int, int, float]]] = {}
    for match_id in range(1, MATCHES + 1):
        players = 2 + match_id % 3
        seated = rng.sample(version_ids, players)
        seatings[match_id] = [(version_id, rng.randint(0, 60), rng.uniform(1, players)) for version_id in seated]
    with cursor.copy(
        "COPY tournaments_match (id, ruleset, rules_version, num_players, games, duplicate_deals, rotate_seats, seed,"
        " ranked, limits, origin, status, attempts, max_attempts, worker, sandbox_tier, error, games_played,"
        " created_at, queued_at, started_at, finished_at, rated_at, entrant_summary) FROM STDIN"
    ) as copy:
        for match_id in range(1, MATCHES + 1):
            at = now - timedelta(seconds=(MATCHES - match_id) * 30)
            players = 2 + match_id % 3
            ranked = match_id % 4 != 0
            summary = [
                {
                    "index": index,
                    "version": version_id,
                    "total_score": score,
                    "mean_rank": rank,
                    "wins": 1,
                    "forfeits": 0,
                }
                for index, (version_id, score, rank) in enumerate(seatings[match_id])
            ]
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
                    json.dumps(summary),
                )
            )
    with cursor.copy(
        "COPY tournaments_matchentrant (match_id, index, version_id, total_score, mean_rank, wins, forfeits) FROM STDIN"
    ) as copy:
        for match_id in range(1, MATCHES + 1):
            for index, (version_id, score, rank) in enumerate(seatings[match_id]):
                copy.write_row((match_id, index, version_id, score, rank, 1, 0))
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
                    failures.append((game_id, match_id, seatings[match_id][seats[0]][0]))
    with cursor.copy(
        "COPY tournaments_gamefailure (game_id, match_id, version_id, seat, kind, message, decision, stderr_tail)"
        " FROM STDIN"
    ) as copy:
        for game, match, version in failures:
            copy.write_row((game, match, version, 0, "timeout", "no answer in 5.0 s", 12, "Traceback: stderr tail"))
    # Each match's count of its failures, as match_record_result writes it with them.
    cursor.execute(
        "UPDATE tournaments_match SET failure_count = counted.n FROM (SELECT match_id, count(*) AS n"
        " FROM tournaments_gamefailure GROUP BY match_id) AS counted WHERE tournaments_match.id = counted.match_id"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_gunicorn(port: int, args: Any, cache: bool = True) -> subprocess.Popen[bytes]:
    environment = os.environ | {"DEBUG": "false", "DATABASE_CONN_MAX_AGE": "600", "LOG_LEVEL": "WARNING"}
    if not cache:
        environment["API_RESPONSE_CACHE_SECONDS"] = "0"
    process = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "lineit_platform.wsgi:application",
            *("--bind", f"127.0.0.1:{port}", "--workers", str(args.workers), "--worker-class", args.worker_class),
            *("--threads", str(args.threads), "--keep-alive", "30", "--log-level", "warning"),
            "--preload",  # the workers fork ready: none is still importing Django when the runs start
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


# --- CPU accounting ---------------------------------------------------------------------------

TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def _cpu_ms(pids: list[int]) -> float:
    """User and system CPU of these processes so far, in milliseconds."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total * TICK_MS


def _children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _database_backends() -> list[int]:
    """PostgreSQL's processes serving the benchmark database (gunicorn keeps its connections)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return [row[0] for row in cursor.fetchall()]


class CpuMeter:
    """CPU used by gunicorn (master and workers) and by the database backends during a run."""

    def __init__(self, server: subprocess.Popen[bytes]) -> None:
        self.server = [server.pid, *_children(server.pid)]
        self.database = _database_backends()
        self.started = (_cpu_ms(self.server), _cpu_ms(self.database))

    def used(self) -> tuple[float, float]:
        return _cpu_ms(self.server) - self.started[0], _cpu_ms(self.database) - self.started[1]


# --- The workload -----------------------------------------------------------------------------

ENDPOINTS = ("leaderboard", "match list", "match detail")


class Workload:
    def __init__(self, bot_ids: list[int], version_ids: list[int], cursors: list[str]) -> None:
        self.bot_ids, self.version_ids, self.cursors = bot_ids, version_ids, cursors

    def pick(self, rng: random.Random, only: str | None = None) -> tuple[str, str]:
        name = only or ENDPOINTS[rng.randrange(3)]
        if name == "leaderboard":
            return name, f"/api/leaderboard/?ruleset=standard&page={rng.randint(1, 10)}"
        if name == "match list":
            query = [
                "",
                f"?bot={rng.choice(self.bot_ids)}",
                f"?version={rng.choice(self.version_ids)}",
                "?status=finished&ranked=true",
                f"?cursor={rng.choice(self.cursors)}" if self.cursors else "",
            ][rng.randrange(5)]
            return name, f"/api/matches/{query}"
        return name, f"/api/matches/{rng.randint(1, MATCHES)}/"


class Result:
    def __init__(self, name: str, seconds: float, requests: int, errors: int, latencies_ms: list[float]) -> None:
        self.name, self.seconds, self.requests, self.errors = name, seconds, requests, errors
        self.latencies_ms = latencies_ms  # p50, p95, p99, max
        self.cpu_ms: dict[str, float] = {}

    def row(self) -> str:
        per = {who: ms / max(self.requests, 1) for who, ms in self.cpu_ms.items()}
        p50, p95, p99, most = self.latencies_ms
        return (
            f"{self.name:<22}{self.requests:>7}{self.requests / self.seconds:>8.0f}{p50:>8.1f}{p95:>8.1f}{p99:>8.1f}"
            f"{most:>8.1f}{per.get('server', 0):>9.2f}{per.get('database', 0):>7.2f}{per.get('client', 0):>7.2f}"
            f"{self.errors:>7}"
        )


WRK_SCRIPT = """
local paths = {}
function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  math.randomseed(tonumber(args[2]))
end
function request()
  return wrk.format("GET", paths[math.random(#paths)], {["Accept"] = "application/json"})
end
function done(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read
    + summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT %d %d %d %.3f %.3f %.3f %.3f\\n", summary.requests, summary.duration, errors,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
"""


def run_wrk(port: int, paths: list[str], name: str, clients: int, seconds: float) -> Result:
    with tempfile.TemporaryDirectory() as folder:
        script, listing = Path(folder, "rotate.lua"), Path(folder, "paths.txt")
        script.write_text(WRK_SCRIPT)
        listing.write_text("\n".join(paths) + "\n")
        command = ["wrk", "-t", "1", "-c", str(clients), "-d", f"{max(1, round(seconds))}s", "--timeout", "10s"]
        command += ["-s", str(script), f"http://127.0.0.1:{port}", "--", str(listing), "1"]
        before = os.times()
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        after = os.times()
    line = next(line for line in output.splitlines() if line.startswith("RESULT"))
    requests, duration_us, errors, *latencies = line.split()[1:]
    result = Result(name, int(duration_us) / 1e6, int(requests), int(errors), [float(v) for v in latencies])
    result.cpu_ms["client"] = (after.children_user + after.children_system) - (
        before.children_user + before.children_system
    )
    result.cpu_ms["client"] *= 1000
    return result


def run_threads(port: int, paths: list[str], name: str, clients: int, seconds: float) -> Result:
    """The fallback without wrk: one Python thread per client, each with a keep-alive connection."""
    times: list[float] = []
    errors = [0]
    until = time.monotonic() + seconds

    def client(seed: int) -> None:
        rng = random.Random(seed)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < until:
            started = time.perf_counter()
            try:
                connection.request("GET", rng.choice(paths), headers={"Accept": "application/json"})
                response = connection.getresponse()
                response.read()
                errors[0] += response.status != 200
            except (OSError, http.client.HTTPException):
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                errors[0] += 1
            times.append((time.perf_counter() - started) * 1000)
        connection.close()

    started, cpu = time.monotonic(), time.process_time()
    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result = Result(name, time.monotonic() - started, len(times), errors[0], [0.0] * 4)
    result.latencies_ms = [statistics.median(times), percentile(times, 0.95), percentile(times, 0.99), max(times)]
    result.cpu_ms["client"] = (time.process_time() - cpu) * 1000
    return result


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(server: subprocess.Popen[bytes], port: int, paths: list[str], name: str, args: Any) -> Result:
    run = run_wrk if shutil.which("wrk") and not args.python_clients else run_threads
    run(port, paths, name, args.clients, args.warmup)
    meter = CpuMeter(server)
    result = run(port, paths, name, args.clients, args.seconds)
    result.cpu_ms["server"], result.cpu_ms["database"] = meter.used()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8, help="concurrent keep-alive connections")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each measured run")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=3, help="threads per gunicorn worker")
    parser.add_argument("--worker-class", default="gthread", help="gunicorn's: gthread, or sync (no keep-alive)")
    parser.add_argument("--mix-only", action="store_true", help="skip the runs of one endpoint each")
    parser.add_argument("--python-clients", action="store_true", help="Python threads even when wrk is there")
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
    workload = Workload(bot_ids, version_ids, [])
    results = []
    # Cold: the response cache off, so every request reads the database and writes its JSON. Then
    # as deployed: the leaderboard's pages and the details already served come from the cache.
    for cache in (False, True):
        port = free_port()
        server = start_gunicorn(port, args, cache)
        try:
            workload.cursors = workload.cursors or _cursors(port)
            rng = random.Random(7)
            runs = [] if args.mix_only else list(ENDPOINTS)
            for only in [*runs, None]:
                paths = [workload.pick(rng, only)[1] for _ in range(5000)]
                results.append(measure(server, port, paths, f"{only or 'mix'}{'' if cache else ' (cold)'}", args))
        finally:
            stop(server)
    sys.exit(0 if report(results, args) else 1)


def report(results: list[Result], args: Any) -> bool:
    client = "wrk" if shutil.which("wrk") and not args.python_clients else "Python threads"
    print(
        f"\ngunicorn {args.worker_class}: {args.workers} workers x {args.threads} threads; {args.clients} connections"
        f" ({client});"
        f" {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at the end"
    )
    print(
        f"{'run':<22}{'n':>7}{'req/s':>8}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>8}"
        f"{'cpu ms/request: server':>24}{'db':>5}{'client':>8}{'errors':>7}"
    )
    for result in results:
        print(result.row())
    mix = results[-1]
    ok = mix.latencies_ms[1] < 50 and not mix.errors
    print(f"latencies in ms; (cold): response cache off. goal p95 < 50 ms for the mix: {'met' if ok else 'NOT met'}")
    return ok


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


if __name__ == "__main__":
    main()
