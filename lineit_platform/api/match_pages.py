"""The match list in one query, on PostgreSQL, for filter values in their plain form.

The general path (matches.MatchViewSet.list) builds the filtered id query with django-filter and
the ORM, then reads the page in three more queries: about half the request's CPU, and the most
requested list of the API. Here the filters the clients use (bot, version, status, ruleset,
ranked, origin, tournament) become fixed SQL, and the page, its requesters, entrants and their
versions' labels come back as one result.

Same results, same errors: a value is taken here only in a form the FilterSet cleans to that same
value (an id in plain digits, an exact choice, true/false/1/0); anything else (a bad value, a date,
a filter not listed here, SQLite) goes down the general path, which answers it as it always has.
DRF's CursorPagination pages a MatchRows as it pages a queryset (same cursors, same links), and
MatchRows turns its ``order_by``, ``filter`` and slice into SQL the way the ORM does for an id.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.http import QueryDict
from rest_framework.request import Request

from tournaments.models import Match

from . import reads
from .filters import MAX_ID, PLAIN_ID, MatchFilter, StrictBooleanField

_CHOICES = {
    name: frozenset(str(key) for key, _ in MatchFilter.base_filters[name].extra["choices"])
    for name in ("status", "ruleset", "origin")
}
_COLUMNS = {"status": "m.status", "ruleset": "m.ruleset", "origin": "m.origin", "tournament": "m.tournament_id"}
_MIN_ID = -(2**63)

# The matches in which a version (or any version of a bot) played, each once, in the page's order:
# read from the (version, match) index, then each match by its key. Written as a join from the
# entrants, PostgreSQL stops after a page; as ``m.id IN (...)`` it walks the matches from the
# newest and tests each one, thousands for a version that plays one match in three hundred.
_BY_VERSION = "e.version_id = %s"
_BY_BOT = "e.version_id IN (SELECT v.id FROM bots_botversion v WHERE v.bot_id = %s)"
_PLAYED = """(SELECT DISTINCT e.match_id FROM tournaments_matchentrant e WHERE {} ORDER BY e.match_id {})
        played JOIN tournaments_match m ON m.id = played.match_id"""

PAGE_SQL = f"""
    SELECT {reads.MATCH_COLUMNS}, {reads.ENTRANT_COLUMNS}, v.number, v.bot_id, b.name
    FROM (
        SELECT m.id, m.status, m.ruleset, m.rules_version, m.ranked, m.origin, m.num_players, m.games,
            m.games_played, m.duplicate_deals, m.rotate_seats, m.seed, m.requested_by_id, m.error,
            m.created_at, m.started_at, m.finished_at
        FROM {{source}}
        WHERE {{where}}
        ORDER BY m.id {{order}}
        LIMIT {{limit}} OFFSET {{offset}}
    ) m
        LEFT JOIN auth_user u ON u.id = m.requested_by_id
        LEFT JOIN tournaments_matchentrant e ON e.match_id = m.id
        LEFT JOIN bots_botversion v ON v.id = e.version_id
        LEFT JOIN bots_bot b ON b.id = v.bot_id
    ORDER BY m.id {{order}}, e."index" """


def match_rows(request: Request) -> MatchRows | None:
    """The list's matches as MatchRows, or None when the general path must read them."""
    if connection.vendor != "postgresql":
        return None
    params: QueryDict = request.query_params
    conditions: list[str] = []
    values: list[Any] = []
    played: tuple[str, int] | None = None
    for name in sorted(params):  # one order, so one SQL text (one prepared statement) per filter set
        if name not in MatchFilter.base_filters:
            continue  # not a filter (cursor, page_size, format): the FilterSet ignores it too
        value = params.get(name)  # the last one, as the filter's form reads it
        if value == "":
            continue  # an empty value filters nothing
        if name in ("bot", "version"):
            if played is not None or not PLAIN_ID.fullmatch(value):
                return None
            played = (_BY_BOT if name == "bot" else _BY_VERSION, int(value))
        elif name == "tournament" and PLAIN_ID.fullmatch(value):
            conditions.append(f"{_COLUMNS[name]} = %s")
            values.append(int(value))
        elif name in _CHOICES and value in _CHOICES[name]:
            conditions.append(f"{_COLUMNS[name]} = %s")
            values.append(value)
        elif name == "ranked" and value.strip().lower() in StrictBooleanField.VALUES:
            conditions.append("m.ranked" if StrictBooleanField.VALUES[value.strip().lower()] else "NOT m.ranked")
        else:
            return None
    return MatchRows(request, played, conditions, values)


class MatchRows:
    """The filtered matches as DRF's CursorPagination reads a queryset: ``order_by("-id")`` or
    ``order_by("id")``, at most one ``filter(id__lt=...)`` or ``filter(id__gt=...)``, then one
    slice, which runs the query and gives MatchSerializer's dicts."""

    def __init__(
        self, request: Request, played: tuple[str, int] | None, conditions: list[str], values: list[Any]
    ) -> None:
        self.request = request
        self.played = played
        self.conditions = conditions
        self.values = values
        self.descending = True
        self.bound: tuple[str, int] | None = None
        self.empty = False

    def order_by(self, *fields: str) -> MatchRows:
        assert fields in (("-id",), ("id",)), fields
        self.descending = fields == ("-id",)
        return self

    def filter(self, **lookup: Any) -> MatchRows:
        ((name, position),) = lookup.items()
        assert name in ("id__lt", "id__gt") and self.bound is None, name
        # The ORM's reading of the cursor's position: its conversion (and its error), and a value
        # past what the column holds bounds nothing or everything.
        value = Match._meta.pk.get_prep_value(position)
        below = name == "id__lt"
        if value > MAX_ID:
            self.empty = not below
        elif value < _MIN_ID:
            self.empty = below
        else:
            self.bound = ("<" if below else ">", value)
        return self

    def __getitem__(self, page: slice) -> list[dict[str, Any]]:
        assert page.step is None and page.start is not None and page.stop is not None
        if self.empty:
            return []
        order = "DESC" if self.descending else "ASC"
        conditions, values = list(self.conditions), list(self.values)
        if self.bound is not None:
            conditions.append(f"m.id {self.bound[0]} %s")
            values.append(self.bound[1])
        source = "tournaments_match m"
        if self.played is not None:
            played, by = self.played
            if self.bound is not None:  # the entrants' index starts at the cursor too
                played = f"{played} AND e.match_id {self.bound[0]} %s"
            source = _PLAYED.format(played, order)
            values = [by, *([self.bound[1]] if self.bound is not None else []), *values]
        # The limit and offset written out: a prepared statement with them as parameters gets a
        # generic plan made for a tenth of the table.
        where = " AND ".join(conditions) or "TRUE"
        limit, offset = int(page.stop - page.start), int(page.start)
        sql = PAGE_SQL.format(source=source, where=where, order=order, limit=limit, offset=offset)
        rows = reads.fetch(sql, values)
        return reads.matches_with_entrants(rows, reads.Links(self.request))
