"""A match's whole result recorded at once: its games, their failures, the entrants' totals and
summary, the match finished, its ratings applied and, for a ranked match, each entrant's failure
health. ``match_finish`` is the one place a match's result is written: the last chunk in calls it
(chunks.py), and ``match_record_result`` for a match played in one piece (tests, tools).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone

from bots.services import bot_versions_match_health_record
from lineit.botkit.referee import MatchResult
from lineit.botkit.untrusted import storable_text
from lineit_platform.errors import ApplicationError
from lineit_platform.queueing import send_after_commit

from ...models import Game, GameFailure, Match, MatchChunk, MatchEntrant, compress_replay
from ..ratings import ratings_apply_pending
from .after import match_ended

logger = logging.getLogger(__name__)


@transaction.atomic
def match_record_result(*, match_id: int, attempt: int, result: MatchResult) -> bool:
    """Record the whole result of one attempt of a match at once (a match played in one piece,
    not by chunks: tests, tools). Idempotent: a second delivery, or a stale attempt whose match
    was requeued, records nothing and returns False."""
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.status != Match.Status.RUNNING or match.attempts != attempt:
        logger.info(
            "match %s: result of attempt %s ignored (%s, attempt %s)", match_id, attempt, match.status, match.attempts
        )
        return False
    if len(result.games) != match.games:
        raise ApplicationError(f"match {match_id}: {len(result.games)} games in the result, {match.games} expected")
    MatchChunk.objects.filter(match_id=match_id).delete()  # played in one piece: its chunks mean nothing
    match_finish(match=match, result=result)
    return True


def match_finish(*, match: Match, result: MatchResult) -> None:
    """Write every game, failure and total, finish the match and apply ratings, in the caller's
    transaction (with the match locked): the one place a match's result is recorded (by
    match_record_result, or by the last chunk in: chunks.py)."""
    entrants = {entrant.index: entrant for entrant in match.entrants.all()}
    games = Game.objects.bulk_create(
        Game(
            match=match,
            index=record.index,
            deal=record.deal,
            deck_seed=record.deck_seed,
            seats=list(record.seats),
            scores=list(record.scores),
            ranks=list(record.ranks),
            forfeits=list(record.forfeits),
            timings=[timing.to_dict() for timing in record.timings],
            replay=compress_replay(record.replay),
        )
        for record in result.games
    )
    GameFailure.objects.bulk_create(
        GameFailure(
            game=game,
            match=match,
            version_id=entrants[record.seats[failure.seat]].version_id if failure.seat >= 0 else entrants[0].version_id,
            seat=failure.seat,
            kind=failure.kind,
            message=storable_text(failure.message)[:10_000],  # the bot's text: it may hold NUL
            decision=failure.decision,
            stderr_tail=storable_text(failure.stderr_tail)[-4000:],
        )
        for game, record in zip(games, result.games)
        for failure in record.failures
    )
    _record_totals(entrants, result)
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.sandbox_tier = result.tier[:32]
    match.games_played = len(result.games)
    match.entrant_summary = entrant_summary(entrants.values())
    match.failure_count = sum(len(record.failures) for record in result.games)
    match.save(
        update_fields=["status", "finished_at", "sandbox_tier", "games_played", "entrant_summary", "failure_count"]
    )
    if match.ranked:
        _health_record(match, entrants, result)
    ratings_apply_pending()
    match_ended(match)


def _health_record(match: Match, entrants: dict[int, MatchEntrant], result: MatchResult) -> None:
    """A ranked match counts in each entrant's run of failing matches (docs/platform.md, "Failure
    health"): it failed in it when it forfeited a game by its own fault. A platform fault never
    counts (it stops the match before any result: match_release). A placement match ended: the
    ladder tick, sent after commit, schedules the next one without waiting for beat."""
    failing: dict[int, str] = {}
    for record in result.games:
        for failure in record.failures:
            if failure.seat >= 0 and failure.bots_fault:
                version_id = entrants[record.seats[failure.seat]].version_id
                failing.setdefault(version_id, f"{failure.kind} in game {record.index + 1}")
    clean = {entrant.version_id for entrant in entrants.values()} - set(failing)
    bot_versions_match_health_record(match_id=match.pk, failing=failing, clean=clean)
    if match.origin == Match.Origin.PLACEMENT:
        send_after_commit("tournaments.tasks.ladder_tick", what=f"the placement after match {match.pk}")


def entrant_summary(entrants: Iterable[MatchEntrant]) -> list[dict[str, Any]]:
    """What a match's row holds of its entrants (Match.entrant_summary), in index order."""
    return [
        {
            "index": entrant.index,
            "version": entrant.version_id,
            "total_score": entrant.total_score,
            "mean_rank": entrant.mean_rank,
            "wins": entrant.wins,
            "forfeits": entrant.forfeits,
        }
        for entrant in sorted(entrants, key=lambda entrant: entrant.index)
    ]


def _record_totals(entrants: dict[int, MatchEntrant], result: MatchResult) -> None:
    totals = {index: {"score": 0, "ranks": 0, "wins": 0, "forfeits": 0} for index in entrants}
    for record in result.games:
        for seat, entrant in enumerate(record.seats):
            total = totals[entrant]
            total["score"] += record.scores[seat]
            total["ranks"] += record.ranks[seat]
            total["wins"] += record.ranks[seat] == 1 and seat not in record.forfeits
            total["forfeits"] += seat in record.forfeits
    for index, entrant in entrants.items():
        entrant.total_score = totals[index]["score"]
        entrant.mean_rank = totals[index]["ranks"] / max(len(result.games), 1)
        entrant.wins = totals[index]["wins"]
        entrant.forfeits = totals[index]["forfeits"]
    MatchEntrant.objects.bulk_update(entrants.values(), ["total_score", "mean_rank", "wins", "forfeits"])
