"""Helpers of the tournament tests (imported by name: the tests folders are not packages)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from bots.code_cache import version_source
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from tournaments.models import Match, Tournament
from tournaments.services.matches.results import match_record_result
from tournaments.services.matches.states import match_claim, match_spec
from tournaments.services.tournaments.running import tournament_advance

CRASHING_BOT = b"""def act(observation):
    raise RuntimeError("this bot fails every game")
"""


def soon(minutes: int = 5) -> Any:
    return timezone.now() + timedelta(minutes=minutes)


def play_in_process(match: Match) -> Match:
    """Claim a queued match, play it here with in-process players and record it."""
    claimed = match_claim(match_id=match.pk, worker="tests")
    assert claimed is not None
    versions = [entrant.version for entrant in claimed.entrants.select_related("version__bot").order_by("index")]
    result = run_match(match_spec(claimed), [InProcessPlayer(version_source(version)) for version in versions])
    assert match_record_result(match_id=match.pk, attempt=claimed.attempts, result=result)
    return Match.objects.get(pk=match.pk)


def play_round(tournament: Tournament) -> Tournament:
    """Play every queued match of the tournament, then advance it (what the task does after commit)."""
    for match in Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("id"):
        play_in_process(match)
    return tournament_advance(tournament_id=tournament.pk)


def play_out(tournament: Tournament, most: int = 30) -> Tournament:
    for _ in range(most):
        if tournament.status != Tournament.Status.RUNNING:
            return tournament
        tournament = play_round(tournament)
    raise AssertionError(f"{tournament} did not finish in {most} rounds")


def play(match: Match):  # type: ignore[no-untyped-def]
    """Claim ``match`` and play it whole in the sandbox: its result, not yet recorded."""
    from bots.runner import sandbox_match_run

    claimed = match_claim(match_id=match.pk, worker="test")
    assert claimed is not None
    sources = [version_source(entrant.version) for entrant in claimed.entrants.order_by("index")]
    return sandbox_match_run(spec=match_spec(claimed), sources=sources)


def live_table() -> dict[int, tuple[float, int]]:
    """The live ratings: version -> (rating, games)."""
    from tournaments.models import Rating

    return {r.version_id: (r.rating, r.games) for r in Rating.objects.all()}
