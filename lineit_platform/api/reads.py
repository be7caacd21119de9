"""The busiest reads (the match list, the match detail, the leaderboard) as plain SQL rows, written
out by hand as the JSON their serializers declare. The serializers stay the schema (OpenAPI);
tests/api/test_fast_reads.py holds the two together (the declared fields, in order, with the
models' values; a detail's games as the game endpoint writes them).

Why: under load, CPU is the latency. The ORM spends about a millisecond building each query,
more than PostgreSQL takes to answer it, and DRF's serializers as much again for a page of rows.
Fixed SQL text costs neither. The SQL is plain (PostgreSQL and SQLite both run it); on
PostgreSQL a page of the match list is one query (match_pages.py), elsewhere (and for filter
values not in their plain form) the ORM builds its filtered, paginated id query. On PostgreSQL
over a kept connection, every query here is a prepared statement (see fetch).

Values as the backends give them to a raw cursor: JSON columns are text (Django registers no
JSON loader), date-times are UTC (aware on PostgreSQL, naive on SQLite).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, NotSupportedError, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.http import Http404
from django.urls import get_script_prefix, get_urlconf, reverse
from rest_framework.request import Request

from lineit.stats.elo import PROVISIONAL_GAMES

from .permissions import may_manage

Row = tuple[Any, ...]


def fetch(sql: str, params: Sequence[Any] = ()) -> list[Row]:
    """The rows of one query, through Django's cursor (logged and counted like the ORM's); on
    PostgreSQL over a kept connection, as a prepared statement."""
    database = connections[DEFAULT_DB_ALIAS]
    try:
        return _rows(database, sql, params)
    except NotSupportedError:
        # A prepared statement of this kept connection selects a column whose type another
        # connection changed (a migration while this process serves): PostgreSQL refuses it
        # ("cached plan must not change result type"). Forget this connection's statements and
        # ask once more; inside a transaction the failed statement has aborted it, so not there.
        if database.vendor != "postgresql" or database.in_atomic_block:
            raise
        with database.cursor() as cursor:
            cursor.execute("DEALLOCATE ALL")  # psycopg forgets its own list of them too
        return _rows(database, sql, params)


def _rows(database: BaseDatabaseWrapper, sql: str, params: Sequence[Any]) -> list[Row]:
    with _cursor(database) as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# The connection is looked up once per query: each attribute read through django.db.connection
# looks it up again in the thread's connections (a third of this module's own cost of a query).
def _cursor(database: BaseDatabaseWrapper) -> Any:
    if database.vendor != "postgresql":
        return database.cursor()
    if _keeps_connections(database):
        cursor = _preparing_cursor(database)
    else:
        cursor = database.cursor()
    cursor.cursor.adapters.register_loader("timestamptz", _timestamptz_loader())
    return cursor


# Prepared statements. PostgreSQL plans a query afresh every time it is sent as text: for these
# reads (joins of four or five tables) planning took four fifths of the database's CPU, and a
# prepared statement is planned once per connection. Django turns psycopg's preparing off (for
# poolers in transaction mode, which may hand a request another server session); these queries
# alone ask for it, and only over connections that outlive a request (CONN_MAX_AGE, or Django's
# pool): on a connection per request, a prepare is one more round trip for nothing. psycopg
# prepares at most on request while its threshold is past any count, and keeps 100 per connection.
_NEVER = 2**62


def _keeps_connections(database: BaseDatabaseWrapper) -> bool:
    config = database.settings_dict
    return config["CONN_MAX_AGE"] != 0 or bool(config["OPTIONS"].get("pool"))


def _preparing_cursor(database: BaseDatabaseWrapper) -> Any:
    """Django's cursor (logged, counted, its errors Django's) around psycopg's server-binding one."""
    database.close_if_health_check_failed()
    database.ensure_connection()
    database.validate_thread_sharing()
    raw = database.connection
    if raw.prepare_threshold is None:  # Django's default: psycopg then prepares nothing, asked or not
        raw.prepare_threshold = _NEVER
    preparing = _preparing_cursor_class()(raw)
    return database.make_debug_cursor(preparing) if database.queries_logged else database.make_cursor(preparing)


@functools.cache
def _preparing_cursor_class() -> type:
    from django.db.backends.postgresql.base import ServerBindingCursor

    class PreparingCursor(ServerBindingCursor):
        """Server-side binding (a prepared statement holds the query apart from its values), and
        every query prepared."""

        def execute(self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: Any = None) -> Any:
            return super().execute(query, params, prepare=True, binary=binary)

    return PreparingCursor


@functools.cache
def _timestamptz_loader() -> type:
    """psycopg's own loader of aware date-times (C, in psycopg-binary). Django's, in Python, took a
    tenth of the match list's CPU; both read the session's time zone, which Django sets to UTC."""
    import psycopg
    from psycopg.pq import Format

    loader = psycopg.adapters.get_loader(psycopg.postgres.types["timestamptz"].oid, Format.TEXT)
    assert loader is not None
    return loader


def where_in(ids: Sequence[int]) -> tuple[str, list[Any]]:
    """``= ANY(%s)`` with one array of these ids on PostgreSQL, ``IN (%s, ...)`` elsewhere; and its
    parameters. One query text whatever the count (psycopg parses a new text, or any with more
    than fifty parameters, on every call), and the array written as text: psycopg's dumper of
    Python lists cost more than the query."""
    if connection.vendor == "postgresql":
        return "= ANY(%s::bigint[])", ["{" + ",".join(str(int(pk)) for pk in ids) + "}"]
    return f"IN ({', '.join(['%s'] * len(ids))})", list(ids)


def iso(value: datetime | None) -> str | None:
    """A date-time as DRF writes it (UTC, with a Z)."""
    if value is None:
        return None
    if value.tzinfo is None:  # SQLite: stored in UTC
        value = value.replace(tzinfo=UTC)
    elif value.utcoffset():
        value = value.astimezone(UTC)
    return value.isoformat()[:-6] + "Z"


def _in(sql: str, ids: Sequence[int]) -> tuple[str, list[Any]]:
    condition, params = where_in(ids)
    return sql.format(condition), params


_PLACEHOLDER = 987654321987654321


class Links:
    """Absolute URLs of one request, each made from its route's template (a page makes many)."""

    def __init__(self, request: Request | None) -> None:
        self.request = request
        self.templates: dict[str, str] = {}

    def __call__(self, name: str, pk: int) -> str:
        template = self.templates.get(name)
        if template is None:
            path = _route(name, get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)
            if self.request is not None:
                path = self.request.build_absolute_uri(path)
            template = self.templates[name] = path.replace(str(_PLACEHOLDER), "{}")
        return template.format(pk)


@functools.lru_cache(maxsize=128)
def _route(name: str, script_prefix: str, urlconf: str) -> str:
    """A route's path with the placeholder for its id, reversed once per script prefix and URLconf
    (the prefix is the request's): reversing costs some 20 µs, more than a page of links."""
    return reverse(name, args=[_PLACEHOLDER], urlconf=urlconf)


# --- Matches ----------------------------------------------------------------------------------

MATCH_COLUMNS = """m.id, m.status, m.ruleset, m.rules_version, m.ranked, m.origin, m.num_players, m.games,
    m.games_played, m.duplicate_deals, m.rotate_seats, m.seed, u.username, m.error, m.created_at, m.started_at,
    m.finished_at"""

ENTRANT_COLUMNS = 'e."index", e.version_id, e.total_score, e.mean_rank, e.wins, e.forfeits'

MATCHES_SQL = f"""
    SELECT {MATCH_COLUMNS}
    FROM tournaments_match m LEFT JOIN auth_user u ON u.id = m.requested_by_id
    WHERE m.id {{}}"""

# A page's entrants and their versions' labels in two queries: joined, PostgreSQL hashes every
# version and bot for sixty entrants, and plans the join longer than it runs two lookups.
ENTRANTS_SQL = f"""
    SELECT e.match_id, {ENTRANT_COLUMNS}
    FROM tournaments_matchentrant e
    WHERE e.match_id {{}}
    ORDER BY e.match_id, e."index" """

VERSIONS_SQL = """
    SELECT v.id, v.number, v.bot_id, b.name
    FROM bots_botversion v JOIN bots_bot b ON b.id = v.bot_id
    WHERE v.id {}"""

# One match: a row per entrant (one row, its entrant columns null, if it has none). For a single
# match the joins are index lookups.
MATCH_DETAIL_SQL = f"""
    SELECT {MATCH_COLUMNS}, m.attempts, m.sandbox_tier, m.limits, {ENTRANT_COLUMNS}, v.number, v.bot_id, b.name
    FROM tournaments_match m
        LEFT JOIN auth_user u ON u.id = m.requested_by_id
        LEFT JOIN tournaments_matchentrant e ON e.match_id = m.id
        LEFT JOIN bots_botversion v ON v.id = e.version_id
        LEFT JOIN bots_bot b ON b.id = v.bot_id
    WHERE m.id = %s
    ORDER BY e."index" """

# Its games: a row per failure (one row, its failure columns null, if the game had none).
GAMES_SQL = """
    SELECT g.id, g."index", g.deal, g.deck_seed, g.seats, g.scores, g.ranks, g.forfeits, g.timings,
        f.id, f.seat, f.version_id, f.kind, f.message, f.decision, f.stderr_tail, b.owner_id
    FROM tournaments_game g
        LEFT JOIN tournaments_gamefailure f ON f.game_id = g.id
        LEFT JOIN bots_botversion v ON v.id = f.version_id
        LEFT JOIN bots_bot b ON b.id = v.bot_id
    WHERE g.match_id = %s
    ORDER BY g."index", f.seat, f.id"""


def _entrant(row: Row, number: int, bot: int, name: str) -> dict[str, Any]:
    """EntrantSerializer's fields, from a row of ENTRANT_COLUMNS and its version's label."""
    index, version, score, mean_rank, wins, forfeits = row
    return {
        "index": index,
        "version": version,
        "label": f"{name}@v{number}",
        "bot": bot,
        "bot_name": name,
        "total_score": score,
        "mean_rank": mean_rank,
        "wins": wins,
        "forfeits": forfeits,
    }


def entrants_of(match_ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
    """Each match's entrants, in seat-list order; two queries."""
    by_match: dict[int, list[dict[str, Any]]] = {pk: [] for pk in match_ids}
    entrants = fetch(*_in(ENTRANTS_SQL, match_ids)) if match_ids else []
    if not entrants:
        return by_match
    version_ids = list({entrant[2] for entrant in entrants})
    labels = {row[0]: row[1:] for row in fetch(*_in(VERSIONS_SQL, version_ids))}
    for entrant in entrants:
        by_match[entrant[0]].append(_entrant(entrant[1:], *labels[entrant[2]]))
    return by_match


def _match(row: Row, entrants: list[dict[str, Any]], links: Links) -> dict[str, Any]:
    """MatchSerializer's fields, from a row of MATCH_COLUMNS."""
    return {
        "id": row[0],
        "url": links("api-match-detail", row[0]),
        "status": row[1],
        "ruleset": row[2],
        "rules_version": row[3],
        "ranked": row[4],
        "origin": row[5],
        "num_players": row[6],
        "games": row[7],
        "games_played": row[8],
        "duplicate_deals": row[9],
        "rotate_seats": row[10],
        "seed": row[11],
        "requested_by": row[12],
        "error": row[13],
        "created_at": iso(row[14]),
        "started_at": iso(row[15]),
        "finished_at": iso(row[16]),
        "entrants": entrants,
    }


def matches_with_entrants(rows: Sequence[Row], links: Links) -> list[dict[str, Any]]:
    """MatchSerializer's dicts, in the rows' order, from rows of MATCH_COLUMNS, ENTRANT_COLUMNS and
    the version's number, bot and bot name: a row per entrant, in seat-list order (one row, its
    entrant columns null, for a match without entrants)."""
    matches: list[dict[str, Any]] = []
    entrants: list[dict[str, Any]] = []
    for row in rows:
        if not matches or matches[-1]["id"] != row[0]:
            entrants = []
            matches.append(_match(row, entrants, links))
        if row[17] is not None:
            entrants.append(_entrant(row[17:23], *row[23:26]))
    return matches


def match_list(ids: Sequence[int], request: Request | None) -> list[dict[str, Any]]:
    """The matches with these ids, in this order (MatchSerializer); three queries."""
    if not ids:
        return []
    rows = {row[0]: row for row in fetch(*_in(MATCHES_SQL, ids))}
    entrants, links = entrants_of(ids), Links(request)
    return [_match(rows[pk], entrants[pk], links) for pk in ids if pk in rows]


def match_detail(pk: int, request: Request | None) -> tuple[dict[str, Any], set[int]]:
    """One match with its entrants and games (MatchDetailSerializer), two queries; and the owners
    of the versions that failed in it (who, with staff, see the messages and stderr tails)."""
    rows = fetch(MATCH_DETAIL_SQL, [pk])
    if not rows:
        raise Http404("No Match matches the given query.")
    first, links = rows[0], Links(request)
    entrants = [_entrant(row[20:26], *row[26:29]) for row in rows if row[20] is not None]
    data = _match(first, entrants, links)
    data["attempts"], data["sandbox_tier"], data["limits"] = first[17], first[18], json.loads(first[19])
    viewer = getattr(request, "user", None)
    games: list[dict[str, Any]] = []
    owners: set[int] = set()
    for game, index, deal, deck_seed, seats, scores, ranks, forfeits, timings, failure, *failed in fetch(
        GAMES_SQL, [first[0]]
    ):
        if not games or games[-1]["id"] != game:
            games.append(
                {
                    "id": game,
                    "match": first[0],
                    "index": index,
                    "deal": deal,
                    "deck_seed": deck_seed,
                    "seats": json.loads(seats),
                    "scores": json.loads(scores),
                    "ranks": json.loads(ranks),
                    "forfeits": json.loads(forfeits),
                    "timings": json.loads(timings),
                    "failures": [],
                    "replay_url": links("api-game-replay", game),
                    "verification_url": links("api-game-verification", game),
                }
            )
        if failure is not None:
            seat, version, kind, message, decision, stderr_tail, owner = failed
            owners.add(owner)
            sees = may_manage(viewer, owner)  # the message and the stderr are the bot owner's
            games[-1]["failures"].append(
                {
                    "seat": seat,
                    "version": version,
                    "kind": kind,
                    "message": message if sees else None,
                    "decision": decision,
                    "stderr_tail": stderr_tail if sees else None,
                }
            )
    data["game_logs"] = games
    return data, owners


# --- The leaderboard --------------------------------------------------------------------------

# What a leaderboard row shows, read with .values_list() from the filtered Rating queryset.
LEADERBOARD_COLUMNS = (
    "version_id",
    "ruleset",
    "rules_version",
    "rating",
    "games",
    "updated_at",
    "version__number",
    "version__status",
    "version__bot_id",
    "version__bot__name",
    "version__bot__owner__username",
)


def leaderboard_rows(rows: Sequence[Row], first_rank: int, request: Request | None) -> list[dict[str, Any]]:
    """LeaderboardEntrySerializer's fields, from rows of LEADERBOARD_COLUMNS."""
    links = Links(request)
    queries: dict[tuple[str, str], str] = {}  # a page has one ruleset and rules version
    data = []
    for n, (
        version,
        ruleset,
        rules_version,
        rating,
        games,
        updated_at,
        number,
        status,
        bot,
        bot_name,
        owner,
    ) in enumerate(rows):
        query = queries.get((ruleset, rules_version))
        if query is None:
            query = queries[ruleset, rules_version] = urlencode({"ruleset": ruleset, "rules_version": rules_version})
        data.append(
            {
                "rank": first_rank + n,
                "version": version,
                "label": f"{bot_name}@v{number}",
                "bot": bot,
                "bot_name": bot_name,
                "owner": owner,
                "version_status": status,
                "ruleset": ruleset,
                "rules_version": rules_version,
                "rating": rating,
                "games": games,
                "provisional": games < PROVISIONAL_GAMES,
                "updated_at": iso(updated_at),
                "history_url": f"{links('api-version-rating-history', version)}?{query}",
            }
        )
    return data
