"""Read-only queries of the matches domain, shared by the API and the pages. Nothing here writes.

Each resource is read one way and built once, as plain data (dicts of JSON values and aware
date-times) that the API's serializers pick their declared fields from and the templates show:

- a list of matches (``match_list`` for the queryset that filters and pages, ``match_rows`` for
  what a page shows): one query a page, each match's entrants read from its own row
  (``Match.entrant_summary``, written by the services), the names beside the ids from names.py;
- one match with its games and their failures (``match_detail``);
- a page of games (``game_list``, ``game_rows``);
- head-to-head records of a bot or of a version (``head_to_head``).

A failure's message and stderr tail are the failing bot owner's text: a builder that shows games
is told who may read them (``reads_text_of``: an owner id in, yes or no out) and leaves them None
for everyone else.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from bots.models import Bot, BotVersion, version_label
from lineit.stats.intervals import grouped_rate
from tournaments.models import Game, GameFailure, Match, MatchEntrant

from .names import Label, usernames, version_labels

Row = dict[str, Any]
ReadsTextOf = Callable[[int], bool]

# What a list shows of each match; a detail adds DETAIL_COLUMNS and the games.
MATCH_COLUMNS = (
    "id",
    "status",
    "ruleset",
    "rules_version",
    "ranked",
    "origin",
    "num_players",
    "games",
    "games_played",
    "duplicate_deals",
    "rotate_seats",
    "seed",
    "error",
    "created_at",
    "started_at",
    "finished_at",
    "entrant_summary",
    "requested_by_id",
)
DETAIL_COLUMNS = ("attempts", "sandbox_tier", "limits", "failure_count")
# What a list shows of each game (the match by its id; never the replay), the API's first fields.
GAME_COLUMNS = ("id", "match", "index", "deal", "deck_seed", "seats", "scores", "ranks", "forfeits", "timings")


# --- Lists of matches -------------------------------------------------------------------------


# The reads' querysets are made once: a values() query resolves its columns when it is made (a
# third of a one-row read's CPU). Every read filters a clone of one (filter() and order_by()
# copy it); none is evaluated itself, so none keeps rows. Unordered: each read says its order.
_MATCH_ROWS = Match.objects.order_by().values(*MATCH_COLUMNS)
_MATCH_DETAIL_ROWS = Match.objects.order_by().values(*MATCH_COLUMNS, *DETAIL_COLUMNS)
_GAME_ROWS = Game.objects.order_by().values(*GAME_COLUMNS)
_FAILURE_COLUMNS = ("game_id", "seat", "version_id", "kind", "message", "decision", "stderr_tail")
_FAILURE_ROWS = GameFailure.objects.order_by().values_list(*_FAILURE_COLUMNS, "version__bot__owner_id")


def match_list() -> QuerySet[Match]:
    """Matches as rows of the columns a list shows, unordered, for filtering, ordering and
    paging (the API's cursor: newest first); match_rows builds them."""
    return _MATCH_ROWS.all()


def match_rows(matches: Iterable[Row]) -> list[Row]:
    """Rows of match_list as the API and the pages show them: each match's columns, its
    requester's name (``requested_by``, None if nobody) and its entrants in index order
    (``entrants``: index, version, label, bot, bot_name, number, total_score, mean_rank, wins,
    forfeits, and ``winner``: whether it won a finished match, see _mark_winners). The names come
    from names.py: no query, or one for those not kept."""
    rows = list(matches)
    labels = version_labels(entrant["version"] for row in rows for entrant in row["entrant_summary"])
    requesters = usernames(row["requested_by_id"] for row in rows if row["requested_by_id"] is not None)
    for row in rows:  # each row is a dict of its own, made by the query
        requester = row.pop("requested_by_id")
        row["requested_by"] = None if requester is None else requesters.get(requester)
        row["entrants"] = [_entrant(entrant, labels) for entrant in row.pop("entrant_summary")]
        _mark_winners(row)
    return rows


def _mark_winners(row: Row) -> None:
    """A finished match's winners are the entrants of the best mean rank over its games, unless
    every entrant shares it (a tie: no winner)."""
    entrants = row["entrants"]
    ranks = [entrant["mean_rank"] for entrant in entrants if entrant.get("mean_rank") is not None]
    best = min(ranks) if row["status"] == Match.Status.FINISHED and ranks else None
    tie = len(ranks) == len(entrants) and len(set(ranks)) == 1
    for entrant in entrants:
        entrant["winner"] = best is not None and not tie and entrant.get("mean_rank") == best


def _entrant(summary: Row, labels: dict[int, Label]) -> Row:
    number, bot, name = labels[summary["version"]]
    return summary | {"label": version_label(name, number), "bot": bot, "bot_name": name, "number": number}


def recent_matches(*, limit: int, bot: Bot | None = None, requested_by: Any = None) -> list[Row]:
    """The newest matches (of a bot, or requested by a user), as match_rows builds them."""
    matches = match_list()
    if bot is not None:
        matches = matches.played_by_bot(bot.pk)
    if requested_by is not None:
        matches = matches.filter(requested_by=requested_by)
    return match_rows(matches.order_by("-id")[:limit])


# --- One match, its games and their failures -------------------------------------------------


@dataclass(frozen=True)
class MatchDetail:
    match: Row  # match_rows' row, with DETAIL_COLUMNS and its games (``game_logs``, game_rows' rows)
    failing_owners: frozenset[int]  # the owners of the versions that failed in it


def match_detail(pk: int, *, reads_text_of: ReadsTextOf) -> MatchDetail | None:
    """One match with its entrants, games and failures; None if there is no such match. Two
    queries, the match and its games, and a third for their failures if it has some."""
    found = list(_MATCH_DETAIL_ROWS.filter(pk=pk)[:1])
    if not found:
        return None
    (match,) = match_rows(found)
    games = _GAME_ROWS.filter(match_id=pk).order_by("index")
    failures = _FAILURE_ROWS.filter(match_id=pk) if match["failure_count"] else _FAILURE_ROWS.none()
    match["game_logs"], owners = _games(games, failures, reads_text_of)
    return MatchDetail(match=match, failing_owners=frozenset(owners))


def game_list() -> QuerySet[Game]:
    """Games as rows of the columns a list shows (never their replays), for filtering and
    paging; game_rows builds them."""
    return _GAME_ROWS.all()


def game_rows(games: Iterable[Row], *, reads_text_of: ReadsTextOf) -> list[Row]:
    """Rows of game_list as the API shows them, each with its failures (``failures``: seat,
    version, kind, message, decision, stderr_tail) and its match (``match``). One query."""
    rows = list(games)
    failures = _FAILURE_ROWS.filter(game_id__in=[row["id"] for row in rows]) if rows else _FAILURE_ROWS.none()
    return _games(rows, failures, reads_text_of)[0]


def _games(
    games: Iterable[Row], failures: QuerySet[GameFailure], reads_text_of: ReadsTextOf
) -> tuple[list[Row], set[int]]:
    """The games with their failures (rows of _FAILURE_ROWS), and the owners of the versions
    that failed."""
    by_game: dict[int, list[Row]] = defaultdict(list)
    owners: set[int] = set()
    for game, seat, version, kind, message, decision, stderr_tail, owner in failures.order_by("game_id", "seat", "id"):
        owners.add(owner)
        reads = reads_text_of(owner)
        by_game[game].append(
            {
                "seat": seat,
                "version": version,
                "kind": kind,
                "message": message if reads else None,
                "decision": decision,
                "stderr_tail": stderr_tail if reads else None,
            }
        )
    rows = []
    for row in games:
        row["failures"] = by_game.get(row["id"], [])
        rows.append(row)
    return rows, owners


# --- Head to head -----------------------------------------------------------------------------


@dataclass
class HeadToHead:
    opponent: Bot
    games: int = 0
    wins: float = 0.0  # a tie counts one half
    score_difference: int = 0
    # The win shares of the games of each duplicate deal (match, deal): games of one deck are
    # not independent, so the interval counts the deals as lineit's results table does.
    deals: dict[tuple[int, int], list[float]] = field(default_factory=dict)

    @property
    def mean_score_difference(self) -> float:
        return self.score_difference / self.games if self.games else 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def count(self, *, deal: tuple[int, int], score: int, their_score: int, rank: int, their_rank: int) -> None:
        """One game shared with the opponent: its score difference and win share (a shared rank
        is half a win), in its duplicate deal ``deal`` (match, deal)."""
        share = 1.0 if rank < their_rank else 0.5 if rank == their_rank else 0.0
        self.games += 1
        self.score_difference += score - their_score
        self.wins += share
        self.deals.setdefault(deal, []).append(share)

    @property
    def interval(self) -> tuple[float, float]:
        _, low, high = grouped_rate(list(self.deals.values()))
        return (low, high)


def head_to_head(of: Bot | BotVersion, *, max_games: int = 20_000) -> list[HeadToHead]:
    """Against every bot met at a table, of a bot or of one of its versions: games shared, mean
    score difference (this side minus the other) and the pairwise win rate (a better rank wins,
    a shared rank is half a win) with its interval.

    Counts every finished match, ranked or not, at most the last 5000 and their first
    ``max_games`` games (newest first). Games where this side sat twice compare the other seats
    only with the first of its seats. A bot's own versions are itself, never opponents; for a
    version, the other versions of its bot are opponents like any other bot (by their bot), so
    two versions of a bot are compared against one opponent by their two records."""
    side = "version" if isinstance(of, BotVersion) else "bot"
    entrants = MatchEntrant.objects.filter(match__status=Match.Status.FINISHED)
    entrants = entrants.filter(version=of) if side == "version" else entrants.filter(version__bot=of)
    match_ids = list(entrants.order_by("-match_id").values_list("match_id", flat=True).distinct()[:5000])
    # (version, bot) of each entrant of those matches
    sitting_of: dict[tuple[int, int], tuple[int, int]] = {
        (match_id, index): (version_id, bot_id)
        for match_id, index, version_id, bot_id in MatchEntrant.objects.filter(match_id__in=match_ids).values_list(
            "match_id", "index", "version_id", "version__bot_id"
        )
    }
    tables: dict[int, HeadToHead] = {}
    games = Game.objects.filter(match_id__in=match_ids).order_by("-match_id", "index")
    rows = games.values_list("match_id", "deal", "seats", "scores", "ranks")[:max_games]
    for match_id, deal, seats, scores, ranks in rows.iterator(chunk_size=2000):
        sitting = [sitting_of[(match_id, entrant)] for entrant in seats]
        sides = [version_id if side == "version" else bot_id for version_id, bot_id in sitting]
        if of.pk not in sides:
            continue
        mine = sides.index(of.pk)
        for seat, (other_side, (_, other_bot)) in enumerate(zip(sides, sitting, strict=True)):
            if other_side == of.pk:
                continue
            record = tables.setdefault(other_bot, HeadToHead(opponent=Bot(pk=other_bot)))
            record.count(
                deal=(match_id, deal),
                score=scores[mine],
                their_score=scores[seat],
                rank=ranks[mine],
                their_rank=ranks[seat],
            )
    return _records(tables)


def _records(tables: dict[int, HeadToHead]) -> list[HeadToHead]:
    """The records by opponent bot id, each with its Bot read (one query), most games first."""
    opponents = Bot.objects.in_bulk(tables.keys())
    for other, record in tables.items():
        record.opponent = opponents[other]
    return sorted(tables.values(), key=lambda record: (-record.games, record.opponent.name))
