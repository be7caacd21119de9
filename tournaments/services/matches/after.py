"""What follows the end of a match (finished, failed or cancelled), in the transaction that ended
it: ``match_ended``, called by every way a match ends (results, states, the sweeper).

The one call from the matches domain up to the tournaments domain is here: it only sends the
tournament's advance task, by name and after commit. Everything it starts waits for the commit, so
a rolled-back end tells nobody.
"""

from __future__ import annotations

import functools

from django.db import transaction

from lineit_platform.metrics import record_match_ended
from lineit_platform.queueing import send_after_commit

from ... import signals
from ...models import LiveGame, Match, MatchChunk


def match_ended(match: Match) -> None:
    """A match ended: what happens next, in this order."""
    _live_rows_removed(match)
    _sprt_told(match)
    _tournament_told(match)
    _announced(match)
    _metrics_tallied(match)


def _live_rows_removed(match: Match) -> None:
    """Its live games go: its Game rows (or nothing) are what remains; so do its chunks' kept games."""
    LiveGame.objects.filter(match_id=match.pk).delete()
    MatchChunk.objects.filter(match_id=match.pk).exclude(result=None).update(result=None)


def _sprt_told(match: Match) -> None:
    """An SPRT match: its test folds it in, or tries it again (services/sprt.py)."""
    if match.origin == Match.Origin.SPRT:
        send_after_commit("tournaments.tasks.sprt_match_ended_task", match.pk, what=f"the SPRT of match {match.pk}")


def _tournament_told(match: Match) -> None:
    """A tournament's match: its advance task locks the tournament and advances it once every match
    of its round has ended; a lost message (broker down) is made up for by the tournaments tick."""
    if match.tournament_id is not None:
        tournament = match.tournament_id
        send_after_commit(
            "tournaments.tasks.tournament_advance_task", tournament, what=f"the advance of tournament {tournament}"
        )


def _announced(match: Match) -> None:
    """Announced to the other apps (tournaments/signals.py): the notifications app tells a test
    match's requester, after commit."""
    signals.match_ended.send(sender=Match, match=match)


def _metrics_tallied(match: Match) -> None:
    """The operator's metrics count it once, whoever ended it (a worker, the sweeper, a cancel)."""
    transaction.on_commit(functools.partial(record_match_ended, match.pk), robust=True)
