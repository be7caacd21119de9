"""The platform at a million matches: fill PostgreSQL, then time what grows with the history.

    .venv/bin/python benchmarks/scale.py                      # 1,000,000 matches, 10,000,000 games, 10,000 bots
    .venv/bin/python benchmarks/scale.py --matches 10000 --games 100000 --bots 1000   # 1/100, a quick check
    .venv/bin/python benchmarks/scale.py --keep               # reuse the filled database (same sizes)
    .venv/bin/python benchmarks/scale.py --fill-only          # fill, print the fill's time and sizes, stop

Its own database (DATABASE_URL, lineit_scale by default; a name starting with "test" is refused),
dropped, created and migrated with manage.py's migrate, then filled with COPY (psycopg): users, one
bot per author slot, one active version per bot, --matches finished matches of 2 to 4 entrants
(nine ranked ladder matches in ten, one unranked), --games games among them (duplicate deals, seats
rotated), a failure in one game of 200, and replays compressed as the platform does
(compress_replay) from real games the built-in bots play when the script starts. Results come from
planted strengths; the live Elo table and its event log are written by folding the ranked games
with the platform's own EloTable in canonical order, as the rating writer would have, so the
recompute must find no difference. Indexes are dropped during the load and built after it, then
VACUUM ANALYZE (what autovacuum leaves a live database with).

Printed, with the goal beside each figure:
- fill: seconds per step and in all;
- database size: each table's total (heap, TOAST, indexes), and per million games;
- the Elo recompute over every stored result (tournaments.services.ratings_recompute.ratings_recompute:
  what manage.py recompute_ratings runs), goal <= 60 s at 10,000,000 results;
- the whole-history fit (tournaments.services.ratings_fit.ratings_fit);
- one ladder tick with every version active (tournaments.services.ladder.ladder_tick, rolled
  back so a rerun sees the same database), goal <= 1 s;
- API mix over HTTP against gunicorn, with wrk (benchmarks/api.py's server, clients and
  figures): leaderboard, bot list, bot detail, a bot's matches, match detail, a replay; each
  endpoint alone without the response cache, then the mix without and with it (Redis db
  14, or API_CACHE_URL); goal p95 <= 50 ms for the cached mix;
- pages (HTML, one client): the leaderboard, a bot's page, a bot's match list (and the API's).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
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
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/lineit_scale")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineit_platform.settings")
os.environ.setdefault("VAR_DIR", "/tmp/lineit-bench-scale-var")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import api as api_benchmark  # noqa: E402  (benchmarks/api.py: gunicorn, wrk, figures)

BIG_TABLES = (
    "tournaments_match",
    "tournaments_matchentrant",
    "tournaments_game",
    "tournaments_gamefailure",
    "tournaments_ratingevent",
)
BATCH_MATCHES = 5000
FAILURE_EVERY = 200  # games
RULESET = "standard"


# --- The database -----------------------------------------------------------------------------


def database_name() -> str:
    from lineit_platform.database_url import database_from_url

    config = database_from_url(os.environ["DATABASE_URL"], default_sqlite=Path("unused.sqlite3"))
    name = str(config["NAME"])
    if config["ENGINE"] != "django.db.backends.postgresql" or name.startswith("test"):
        raise SystemExit(f"benchmarks/scale.py fills a PostgreSQL database of its own, not {name!r}")
    return name


def recreate_database(name: str) -> None:
    import psycopg

    with psycopg.connect(host="127.0.0.1", user="postgres", dbname="postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def database_exists(name: str) -> bool:
    import psycopg

    with psycopg.connect(host="127.0.0.1", user="postgres", dbname="postgres", autocommit=True) as connection:
        return connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


# --- Real replays -----------------------------------------------------------------------------


def real_replays(folder: Path) -> dict[int, list[bytes]]:
    """A few games per table size played by the built-in bots (in process), compressed as the
    platform stores them: the Game rows reuse them, so a replay has its real size."""
    from tournaments.models import compress_replay

    lineit = str(Path(sys.executable).with_name("lineit"))
    tables = {
        2: ["heuristic", "greedy"],
        3: ["heuristic", "greedy", "random"],
        4: ["heuristic", "greedy", "random", "random"],
    }
    replays: dict[int, list[bytes]] = {}
    for size, bots in tables.items():
        out = folder / f"size{size}"
        command = [lineit, "match", *bots, "--in-process", "--games", str(2 * size), "--replays", str(out)]
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        replays[size] = [compress_replay(json.loads(path.read_text())) for path in sorted(out.glob("*.json"))]
    return replays


# --- The fill ---------------------------------------------------------------------------------


class Copier:
    """Rows in COPY's text format, a batch at a time (the values written here hold no tab,
    newline or backslash but bytea's prefix)."""

    def __init__(self, table: str, columns: str) -> None:
        self.sql = f"COPY {table} ({columns}) FROM STDIN"
        self.lines: list[str] = []
        self.rows = 0

    def add(self, *values: object) -> None:
        self.lines.append("\t".join("\\N" if value is None else str(value) for value in values))

    def take(self) -> tuple[str, str]:
        """This batch's statement and data; the copier starts the next batch."""
        self.rows += len(self.lines)
        data = "\n".join(self.lines) + "\n" if self.lines else ""
        self.lines = []
        return self.sql, data


class Writer(threading.Thread):
    """Runs the COPY statements while the next batch is drawn (psycopg waits on the socket
    without the GIL): PostgreSQL parses one batch as Python makes the next."""

    def __init__(self, cursor: Any) -> None:
        super().__init__(daemon=True)
        self.cursor, self.batches = cursor, queue.Queue[list[tuple[str, str]] | None](maxsize=2)
        self.failure: BaseException | None = None

    def run(self) -> None:
        while (batch := self.batches.get()) is not None:
            if self.failure is not None:
                continue
            try:
                for sql, data in batch:
                    if data:
                        with self.cursor.copy(sql) as copy:
                            copy.write(data)
            except BaseException as error:  # raised again by the main thread
                self.failure = error

    def send(self, batch: list[tuple[str, str]] | None) -> None:
        if self.failure is not None:
            raise self.failure
        self.batches.put(batch)

    def finish(self) -> None:
        self.send(None)
        self.join()
        if self.failure is not None:
            raise self.failure


def _drop_indexes(cursor: Any) -> list[str]:
    """Drop every index and unique constraint of the big tables but their primary keys; the
    statements that make them again."""
    again = []
    for table in BIG_TABLES:
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass"
            " AND contype IN ('u', 'x')",
            [table],
        )
        for name, definition in cursor.fetchall():
            cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
            again.append(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
        cursor.execute(
            "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index i"
            " WHERE indrelid = %s::regclass AND NOT indisprimary"
            " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid)",
            [table],
        )
        for name, definition in cursor.fetchall():
            cursor.execute(f"DROP INDEX {name}")
            again.append(definition)
    return again


class Filler:
    def __init__(self, args: argparse.Namespace, replays: dict[int, list[bytes]]) -> None:
        from lineit.engine import RULES_VERSION

        self.args, self.rules_version = args, RULES_VERSION
        self.rng = random.Random(17)
        self.replays = {size: ["\\\\x" + blob.hex() for blob in blobs] for size, blobs in replays.items()}
        self.timings: dict[str, float] = {}
        self.game_id = 0  # the last game's id

    def run(self) -> dict[str, float]:
        from django.db import connection, transaction

        with self.step("authors, bots, versions"):
            versions = self._bots_and_versions()
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = replica")  # no FK triggers while loading
            cursor.execute("SET LOCAL maintenance_work_mem = '1GB'")
            again = _drop_indexes(cursor)
            with self.step("matches, entrants, games, failures, rating events (COPY)"):
                table = self._matches(cursor, versions)
            with self.step("live ratings and ledger"):
                self._ratings(cursor, table)
            with self.step("indexes and constraints"):
                for statement in again:
                    cursor.execute(statement)
        with self.step("VACUUM ANALYZE"), connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        return self.timings

    class _Step:
        def __init__(self, timings: dict[str, float], name: str) -> None:
            self.timings, self.name = timings, name

        def __enter__(self) -> None:
            self.started = time.perf_counter()
            print(f"  {self.name} ...", flush=True)

        def __exit__(self, *exc: object) -> None:
            self.timings[self.name] = time.perf_counter() - self.started
            print(f"  {self.name}: {self.timings[self.name]:.1f} s", flush=True)

    def step(self, name: str) -> Filler._Step:
        return Filler._Step(self.timings, name)

    def _bots_and_versions(self) -> list[tuple[int, float]]:
        """(version id, planted strength) of every version: one active version per bot."""
        from django.contrib.auth import get_user_model

        from bots.models import Bot, BotVersion

        user_model = get_user_model()
        authors = user_model.objects.bulk_create(
            user_model(username=f"author{n}") for n in range(max(1, self.args.bots // 4))
        )
        bots = Bot.objects.bulk_create(
            (Bot(owner=authors[n % len(authors)], name=f"scale-bot-{n}") for n in range(self.args.bots)),
            batch_size=2000,
        )
        now = datetime.now(UTC)
        versions = BotVersion.objects.bulk_create(
            (
                BotVersion(
                    bot=bot,
                    number=1,
                    kind="py",
                    original_name="bot.py",
                    path=f"versions/scale{bot.pk}/bot.py",
                    sha256=f"{bot.pk:064x}",
                    size=2000,
                    status=BotVersion.Status.ACTIVE,
                    uploaded_by_id=bot.owner_id,
                    validated_at=now,
                    sandbox_tier="bubblewrap",
                )
                for bot in bots
            ),
            batch_size=2000,
        )
        return [(version.pk, self.rng.gauss(0.0, 1.0)) for version in versions]

    def _matches(self, cursor: Any, versions: list[tuple[int, float]]) -> Any:
        from lineit.stats.elo import EloTable

        table: EloTable[tuple[int, str, str]] = EloTable()
        copiers = self._copiers()
        rated = 0
        writer = Writer(cursor)
        writer.start()
        for match_id in range(1, self.args.matches + 1):
            rated += self._match(match_id, versions, table, copiers, rated + 1)
            if match_id % BATCH_MATCHES == 0 or match_id == self.args.matches:
                writer.send([copier.take() for copier in copiers.values()])
                if match_id % (BATCH_MATCHES * 20) == 0:
                    print(f"    {match_id:,} matches", flush=True)
        writer.finish()
        for name in ("tournaments_match", "tournaments_game", "tournaments_gamefailure", "tournaments_ratingevent"):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), (SELECT max(id) FROM {name}))")
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('tournaments_matchentrant', 'id'),"
            " (SELECT max(id) FROM tournaments_matchentrant))"
        )
        self.counts = {name: copier.rows for name, copier in copiers.items()}
        return table

    def _copiers(self) -> dict[str, Copier]:
        return {
            "match": Copier(
                "tournaments_match",
                "id, ruleset, rules_version, num_players, games, duplicate_deals, rotate_seats, seed, ranked, limits,"
                " origin, status, attempts, max_attempts, worker, sandbox_tier, error, games_played, created_at,"
                " queued_at, started_at, finished_at, rated_at, rating_order, entrant_summary, failure_count",
            ),
            "entrant": Copier(
                "tournaments_matchentrant", "match_id, index, version_id, total_score, mean_rank, wins, forfeits"
            ),
            "game": Copier(
                "tournaments_game",
                "id, match_id, index, deal, deck_seed, seats, scores, ranks, forfeits, timings, replay",
            ),
            "failure": Copier(
                "tournaments_gamefailure", "game_id, match_id, version_id, seat, kind, message, decision, stderr_tail"
            ),
            "event": Copier(
                "tournaments_ratingevent",
                "key, match_id, game_index, version_id, ruleset, rules_version, before, after, delta, k, created_at",
            ),
        }

    def _match(
        self, match_id: int, versions: list[tuple[int, float]], table: Any, copiers: dict[str, Copier], order: int
    ) -> int:
        """One match's rows; 1 if it was rated."""
        args, rng, rules_version = self.args, self.rng, self.rules_version
        size = 2 + match_id % 3
        games = args.games // args.matches + (match_id <= args.games % args.matches)
        ranked = match_id % 10 != 0
        entrants = rng.sample(versions, size)
        span = timedelta(days=365) / args.matches
        finished = datetime.now(UTC) - (args.matches - match_id) * span
        totals = [[0, 0, 0] for _ in entrants]  # score, ranks, wins
        failures = 0
        game_base = self.game_id
        timing = json.dumps([{"decisions": 24, "total_seconds": 0.42, "max_seconds": 0.05}] * size)
        replays = self.replays[size]
        games_out, events_out = copiers["game"].lines, copiers["event"].lines
        at = (finished + timedelta(seconds=1)).isoformat()
        strengths = [strength for _, strength in entrants]
        uniform, apply = rng.random, table.apply
        for index in range(games):
            seats = [(seat + index) % size for seat in range(size)]
            # A strength and a triangular noise 16 points wide either way.
            scores = [max(0, int(30 + 8 * strengths[e] + 16 * (uniform() - uniform()))) for e in seats]
            ordered = sorted(scores, reverse=True)
            ranks = [1 + ordered.index(score) for score in scores]
            game_id = game_base + index + 1
            games_out.append(
                f"{game_id}\t{match_id}\t{index}\t{index // size}\t{match_id * 1000 + index // size}\t{seats}\t"
                f"{scores}\t{ranks}\t[]\t{timing}\t{replays[game_id % len(replays)]}"
            )
            for seat, entrant in enumerate(seats):
                total = totals[entrant]
                total[0] += scores[seat]
                total[1] += ranks[seat]
                total[2] += ranks[seat] == 1
            if game_id % FAILURE_EVERY == 0:
                failures += 1
                copiers["failure"].add(
                    game_id, match_id, entrants[seats[0]][0], 0, "timeout", "no answer in 0.5 s", 12, "stderr tail"
                )
            if ranked:
                for change in apply([(entrants[e][0], RULESET, rules_version) for e in seats], ranks):
                    version_id = change.player[0]
                    events_out.append(
                        f"{match_id}:{index}:{version_id}\t{match_id}\t{index}\t{version_id}\t{RULESET}\t"
                        f"{rules_version}\t{change.before!r}\t{change.after!r}\t{change.delta!r}\t{change.k!r}\t{at}"
                    )
        self.game_id = game_base + games
        summary = []
        for index, ((version_id, _), (score, rank_sum, wins)) in enumerate(zip(entrants, totals, strict=True)):
            mean_rank = rank_sum / max(games, 1)
            copiers["entrant"].add(match_id, index, version_id, score, repr(mean_rank), wins, 0)
            summary.append(
                {
                    "index": index,
                    "version": version_id,
                    "total_score": score,
                    "mean_rank": mean_rank,
                    "wins": wins,
                    "forfeits": 0,
                }
            )
        started = finished - timedelta(seconds=20)
        copiers["match"].add(
            match_id,
            RULESET,
            rules_version,
            size,
            games,
            "t",
            "t",
            match_id,
            "t" if ranked else "f",
            '{"move_seconds": 0.5}',
            "ladder" if ranked else "manual",
            "finished",
            1,
            3,
            "scale-worker",
            "bubblewrap",
            "",
            games,
            (started - timedelta(seconds=5)).isoformat(),
            (started - timedelta(seconds=5)).isoformat(),
            started.isoformat(),
            finished.isoformat(),
            (finished + timedelta(seconds=1)).isoformat() if ranked else None,
            order if ranked else None,
            json.dumps(summary),
            failures,
        )
        return int(ranked)

    def _ratings(self, cursor: Any, table: Any) -> None:
        copier = Copier("tournaments_rating", "version_id, ruleset, rules_version, rating, games, updated_at")
        now = datetime.now(UTC).isoformat()
        for (version_id, ruleset, rules_version), rating in table.ratings.items():
            copier.add(
                version_id, ruleset, rules_version, repr(rating), table.games[(version_id, ruleset, rules_version)], now
            )
        sql, data = copier.take()
        with cursor.copy(sql) as copy:
            copy.write(data)
        applied = self.args.matches - self.args.matches // 10
        cursor.execute("INSERT INTO tournaments_ratingledger (name, applied_matches) VALUES ('elo', %s)", [applied])


def filled_sizes() -> tuple[int, int, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        try:
            cursor.execute(
                "SELECT (SELECT count(*) FROM bots_bot), (SELECT count(*) FROM tournaments_match),"
                " (SELECT coalesce(max(id), 0) FROM tournaments_game)"
            )
        except Exception:  # not migrated yet
            return 0, 0, 0
        bots, matches, games = cursor.fetchone()
    return int(bots), int(matches), int(games)


# --- The figures ------------------------------------------------------------------------------


def report_sizes() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM tournaments_game")
        games = cursor.fetchone()[0]
        cursor.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid), pg_relation_size(c.oid),"
            " coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0), pg_indexes_size(c.oid), c.reltuples"
            " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC"
        )
        rows = cursor.fetchall()
        cursor.execute("SELECT pg_database_size(current_database())")
        whole = cursor.fetchone()[0]
    per = 1e6 / max(games, 1)
    mib = 1024 * 1024
    print(
        f"\ndatabase size ({games:,} games): {whole / mib:,.0f} MiB in all, {whole * per / mib:,.0f} MiB per million games"
    )
    print(f"{'table':<30}{'rows':>12}{'total MiB':>11}{'heap':>9}{'toast':>9}{'indexes':>9}{'MiB per 1M games':>18}")
    for name, total, heap, toast, indexes, tuples in rows:
        if total < 1024 * 1024:
            continue
        print(
            f"{name:<30}{int(max(tuples, 0)):>12,}{total / mib:>11,.1f}{heap / mib:>9,.1f}{toast / mib:>9,.1f}"
            f"{indexes / mib:>9,.1f}{total * per / mib:>18,.1f}"
        )


def measure_recompute(games: int, *, stored: int) -> None:
    """``games``: the ranked games it folds, of ``stored`` games in all (the goal's 10,000,000)."""
    from tournaments.services.ratings_recompute import ratings_recompute

    started, cpu = time.perf_counter(), time.process_time()
    outcome = ratings_recompute()
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    verdict = ("met" if seconds <= 60 else "NOT met") if stored >= 10_000_000 else "judged at full scale only"
    print(
        f"\nElo recompute: {seconds:.1f} s ({cpu_seconds:.1f} s of this process's CPU; PostgreSQL's apart) for"
        f" {outcome.events:,} rating events of {games:,} ranked games of {stored:,} ({len(outcome.table.ratings):,} ratings,"
        f" {len(outcome.mismatches)} mismatches); goal <= 60 s for 10,000,000: {verdict}"
    )


def measure_fit() -> None:
    from tournaments.services.ratings_fit import ratings_fit

    started, cpu = time.perf_counter(), time.process_time()
    run = ratings_fit(ruleset=RULESET)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    print(
        f"whole-history fit: {seconds:.1f} s in all ({cpu_seconds:.1f} s CPU; {run.seconds:.1f} s reading and fitting)"
        f" for {run.games:,} games,"
        f" {run.versions:,} versions, intervals {run.interval!r}; no goal set"
    )
    from django.db import connection

    # The fit has just rewritten every RatingFit row: what autovacuum's analyze would see next,
    # before the API mix reads them (with the statistics of an empty table, PostgreSQL joins the
    # leaderboard's page to every fit: 156 ms a page here, 3.3 ms after this).
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tournaments_ratingfit")


def measure_ladder_tick() -> None:
    from django.conf import settings
    from django.db import transaction

    from bots.models import BotVersion
    from tournaments.services.ladder import ladder_tick

    active = BotVersion.objects.on_ladder().count()

    class Rollback(Exception):
        pass

    for target in (settings.LADDER_PENDING_TARGET, 100):
        times = []
        for attempt in range(3):
            try:
                with transaction.atomic():
                    settings.LADDER_PENDING_TARGET, saved = target, settings.LADDER_PENDING_TARGET
                    try:
                        started = time.perf_counter()
                        scheduled = ladder_tick(rng=random.Random(attempt))
                        times.append(time.perf_counter() - started)
                    finally:
                        settings.LADDER_PENDING_TARGET = saved
                    raise Rollback
            except Rollback:
                pass
        print(
            f"ladder tick: {statistics.median(times) * 1000:.0f} ms (median of 3; {len(scheduled)} matches scheduled,"
            f" LADDER_PENDING_TARGET={target}) with {active:,} versions on the ladder; goal <= 1000 ms:"
            f" {'met' if statistics.median(times) <= 1 else 'NOT met'}"
        )


def api_paths(rng: random.Random, only: str | None, ids: dict[str, Any], pages: int) -> tuple[str, str]:
    name = only or API_ENDPOINTS[rng.randrange(len(API_ENDPOINTS))]
    path = {
        "leaderboard": lambda: f"/api/leaderboard/?ruleset={RULESET}&page={rng.randint(1, pages)}",
        "bot list": lambda: f"/api/bots/?page={rng.randint(1, pages)}",
        "bot detail": lambda: f"/api/bots/{rng.choice(ids['bots'])}/",
        "bot's matches": lambda: f"/api/matches/?bot={rng.choice(ids['bots'])}",
        "match detail": lambda: f"/api/matches/{rng.randint(1, ids['matches'][0])}/",
        "replay": lambda: f"/api/games/{rng.randint(1, ids['games'][0])}/replay/",
    }[name]()
    return name, path


API_ENDPOINTS = ("leaderboard", "bot list", "bot detail", "bot's matches", "match detail", "replay")


def measure_api(args: argparse.Namespace) -> None:
    from bots.models import Bot

    _, matches, games = filled_sizes()
    bot_ids = list(Bot.objects.values_list("pk", flat=True))
    ids: dict[str, Any] = {"bots": bot_ids, "matches": [matches], "games": [games]}
    server_args = argparse.Namespace(
        workers=args.workers, threads=args.threads, worker_class="gthread", clients=args.clients,
        seconds=args.seconds, warmup=3.0, python_clients=False,
    )  # fmt: skip
    results = []
    cache_url = os.environ.get("API_CACHE_URL", "redis://127.0.0.1:6379/14")
    for cache in (False, True):
        os.environ["API_CACHE_URL"] = cache_url if cache else ""
        if cache:
            import redis

            redis.Redis.from_url(cache_url).flushdb()
        port = api_benchmark.free_port()
        server = api_benchmark.start_gunicorn(port, server_args, cache)
        try:
            rng = random.Random(7)
            for only in [*([] if cache or args.mix_only else API_ENDPOINTS), None]:
                paths = [api_paths(rng, only, ids, 10)[1] for _ in range(5000)]
                name = f"{only or 'mix'}{'' if cache else ' (cold)'}"
                results.append(api_benchmark.measure(server, port, paths, name, server_args))
            if cache:
                measure_pages(port, bot_ids)
        finally:
            api_benchmark.stop(server)
    api_benchmark.report(results, server_args)


def measure_pages(port: int, bot_ids: list[int]) -> None:
    """One client, one request at a time: each page's median and worst over 20 requests."""
    import http.client

    from bots.models import Bot

    rng = random.Random(3)
    names = dict(Bot.objects.filter(pk__in=rng.sample(bot_ids, 20)).values_list("pk", "name"))
    picks = list(names.items())
    pages = {
        "leaderboard page": lambda n: f"/leaderboard/?ruleset={RULESET}&page={1 + n % 5}",
        "bot page": lambda n: f"/bots/{picks[n][1]}/",
        "bot's match list page": lambda n: f"/matches/?bot={picks[n][1]}",
        "bot's match list page 5": lambda n: f"/matches/?bot={picks[n][1]}&page=5",
        "bot's matches (API)": lambda n: f"/api/matches/?bot={picks[n][0]}",
    }
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    print(f"\n{'page (one client, 20 requests)':<34}{'median ms':>10}{'max ms':>9}{'status':>8}")
    for name, path_for in pages.items():
        times, statuses = [], set()
        for n in range(20):
            started = time.perf_counter()
            connection.request("GET", path_for(n), headers={"Accept-Encoding": "identity"})
            response = connection.getresponse()
            response.read()
            times.append((time.perf_counter() - started) * 1000)
            statuses.add(response.status)
        print(f"{name:<34}{statistics.median(times):>10.1f}{max(times):>9.1f}{','.join(map(str, sorted(statuses))):>8}")
    connection.close()


# --- Main -------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--games", type=int, default=10_000_000)
    parser.add_argument("--bots", type=int, default=10_000, help="bots, each with one active version")
    parser.add_argument("--keep", action="store_true", help="reuse the filled database when its sizes match")
    parser.add_argument("--fill-only", action="store_true", help="fill and print the sizes, measure nothing")
    parser.add_argument("--skip", default="", help="comma-separated: recompute, fit, ladder, api")
    parser.add_argument("--seconds", type=float, default=15.0, help="length of each measured API run")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=3)
    parser.add_argument("--mix-only", action="store_true", help="no API run of one endpoint alone")
    args = parser.parse_args()
    if not 1 <= args.matches <= args.games or args.bots < 4:
        parser.error("need 1 <= --matches <= --games and --bots >= 4")
    name = database_name()
    keep = args.keep and database_exists(name)
    if not keep:
        recreate_database(name)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if keep and filled_sizes() != (args.bots, args.matches, args.games):
        print(f"the database holds {filled_sizes()} (bots, matches, games), not the sizes asked: refilling")
        from django.db import connections

        connections.close_all()
        recreate_database(name)
        call_command("migrate", verbosity=0)
        keep = False
    if keep:
        print(f"reusing {name}: {args.bots:,} bots, {args.matches:,} matches, {args.games:,} games")
    else:
        print(f"filling {name}: {args.bots:,} bots, {args.matches:,} matches, {args.games:,} games")
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            replays = real_replays(Path(folder))
        sizes = {size: round(statistics.mean(map(len, blobs))) for size, blobs in replays.items()}
        print(f"  real replays, compressed bytes by table size: {sizes}")
        Filler(args, replays).run()
        print(f"fill: {time.perf_counter() - started:.0f} s in all (aim: under 15 minutes at full scale)")
    report_sizes()
    if args.fill_only:
        return
    skip = set(filter(None, args.skip.split(",")))
    if "recompute" not in skip:
        measure_recompute(args.games - args.games // 10, stored=args.games)
    if "fit" not in skip:
        measure_fit()
    if "ladder" not in skip:
        measure_ladder_tick()
    if "api" not in skip:
        measure_api(args)


if __name__ == "__main__":
    main()
