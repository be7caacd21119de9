"""A leaderboard page and its count in one query, on PostgreSQL, for filter values in their plain
form.

The general path (ratings.LeaderboardView) builds the filtered queryset with django-filter, then
the ORM builds a count and a page query: three quarters of the request's CPU went into building
them, and PostgreSQL planned both afresh. Here the leaderboard's filters (ruleset, rules_version,
bot, status, provisional) become fixed SQL, sent as one prepared statement that returns the count
and the page DRF is about to ask for.

Same results, same errors: a value is taken here only in a form the FilterSet cleans to that same
value (an exact choice, a plain id, a plain version string, true/false/1/0); anything else goes
down the general path, which answers it as it always has. DRF's PageNumberPagination pages a
LeaderboardRows as it pages a queryset (same page numbers, links and errors): it asks for the
count, then one slice.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import connection
from django.http import QueryDict
from rest_framework.request import Request

from lineit.engine import RULES_VERSION, RULESETS
from lineit.stats.elo import PROVISIONAL_GAMES

from . import reads
from .filters import PLAIN_ID, LeaderboardFilter, StrictBooleanField
from .pagination import PagePagination

_CHOICES = {
    name: frozenset(str(key) for key, _ in LeaderboardFilter.base_filters[name].extra["choices"])
    for name in ("ruleset", "status")
}
# Printable ASCII without spaces, within the filter's max_length: the CharField keeps it as it is.
_PLAIN_TEXT = re.compile(r"[!-~]{1,20}")
_PLAIN_PAGE = re.compile(r"[1-9][0-9]{0,5}")

# The count of the filtered ratings (an index-only count without the version's filters), and the
# page of them: read from the leaderboard index, then each row's version, bot and owner by key.
# ``LEFT JOIN ... ON TRUE``: a page past the end still brings back its count.
PAGE_SQL = """
    SELECT total.n, r.version_id, r.ruleset, r.rules_version, r.rating, r.games, r.updated_at,
        v.number, v.status, v.bot_id, b.name, u.username
    FROM (SELECT count(*) AS n FROM {source} WHERE {where}) total
        LEFT JOIN (
            SELECT r.version_id, r.ruleset, r.rules_version, r.rating, r.games, r.updated_at
            FROM {source}
            WHERE {where}
            ORDER BY r.rating DESC, r.version_id
            LIMIT {limit} OFFSET {offset}
        ) r ON TRUE
        LEFT JOIN bots_botversion v ON v.id = r.version_id
        LEFT JOIN bots_bot b ON b.id = v.bot_id
        LEFT JOIN auth_user u ON u.id = b.owner_id
    ORDER BY r.rating DESC, r.version_id"""

_RATINGS = "tournaments_rating r"
_RATINGS_OF_VERSIONS = "tournaments_rating r JOIN bots_botversion v ON v.id = r.version_id"


def leaderboard_rows(request: Request, pagination: PagePagination) -> LeaderboardRows | None:
    """The leaderboard's rows as LeaderboardRows, or None when the general path must read them."""
    if connection.vendor != "postgresql":
        return None
    params: QueryDict = request.query_params
    chosen = {"ruleset": RULESETS[0], "rules_version": RULES_VERSION}
    conditions: list[str] = []
    values: list[Any] = []
    for name in sorted(params):  # one order, so one SQL text (one prepared statement) per filter set
        if name not in LeaderboardFilter.base_filters:
            continue  # not a filter (page, page_size, format): the FilterSet ignores it too
        value = params.get(name)  # the last one, as the filter's form reads it
        if value == "":
            continue  # an empty value filters nothing (the ruleset and rules version: their defaults)
        if name in _CHOICES and value in _CHOICES[name]:
            if name == "status":
                conditions.append("v.status = %s")
                values.append(value)
            else:
                chosen[name] = value
        elif name == "rules_version" and _PLAIN_TEXT.fullmatch(value):
            chosen[name] = value
        elif name == "bot" and PLAIN_ID.fullmatch(value):
            conditions.append("v.bot_id = %s")
            values.append(int(value))
        elif name == "provisional" and value.strip().lower() in StrictBooleanField.VALUES:
            provisional = StrictBooleanField.VALUES[value.strip().lower()]
            conditions.append("r.games < %s" if provisional else "r.games >= %s")
            values.append(PROVISIONAL_GAMES)
        else:
            return None
    source = _RATINGS_OF_VERSIONS if any(condition.startswith("v.") for condition in conditions) else _RATINGS
    where = " AND ".join(["r.ruleset = %s", "r.rules_version = %s", *conditions])
    values = [chosen["ruleset"], chosen["rules_version"], *values]
    return LeaderboardRows(source, where, values, _page(request, pagination))


def _page(request: Request, pagination: PagePagination) -> slice:
    """The slice DRF's paginator will most likely ask for: the page named in its plain form (or
    the first). A wrong guess costs one more query, never another answer."""
    size = pagination.get_page_size(request) or 1
    number = request.query_params.get(pagination.page_query_param) or "1"
    start = (int(number) - 1) * size if _PLAIN_PAGE.fullmatch(number) else 0
    return slice(start, start + size)


class LeaderboardRows:
    """The filtered ratings as Django's Paginator reads them: ``count()``, then one slice of rows
    of reads.LEADERBOARD_COLUMNS. The count query brings back the guessed page too."""

    def __init__(self, source: str, where: str, values: list[Any], guess: slice) -> None:
        self.source = source
        self.where = where
        self.values = values
        self.guess = guess
        self.rows: list[reads.Row] | None = None

    def count(self) -> int:
        total, self.rows = self._read(self.guess)
        return total

    def __getitem__(self, page: slice) -> list[reads.Row]:
        assert page.step is None and page.start is not None and page.stop is not None
        if self.rows is not None and page.start == self.guess.start and page.stop <= self.guess.stop:
            return self.rows[: page.stop - page.start]
        return self._read(page)[1]

    def _read(self, page: slice) -> tuple[int, list[reads.Row]]:
        # The limit and offset written out, as for the match list (match_pages.PAGE_SQL).
        limit, offset = int(page.stop - page.start), int(page.start)
        sql = PAGE_SQL.format(source=self.source, where=self.where, limit=limit, offset=offset)
        rows = reads.fetch(sql, self.values * 2)
        return rows[0][0], [row[1:] for row in rows if row[1] is not None]
