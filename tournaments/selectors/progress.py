"""How far a pending match has got, for the pages that follow it without reloading: its queue
position and an estimate while it waits, its games as they end while it plays.

A queued match waits behind the queued matches of its queue with a smaller id (each queue is
served first in, first out), and a bulk one also behind every queued interactive match (the bulk
workers take interactive work first: docs/platform.md, "Queues"). The estimate is the time the
matches ahead and this one would take at the pace of the queue's recent matches: their mean
duration over the last hour, divided among as many matches as its queue plays at once now (at
least one). No recent match of the queue: no estimate.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import Avg, F, Q
from django.urls import reverse
from django.utils import timezone

from tournaments.models import LiveGame, Match

RECENT = timedelta(hours=1)


def _same_queue(origin: str) -> Q:
    interactive = Q(origin__in=Match.INTERACTIVE_ORIGINS)
    return interactive if origin in Match.INTERACTIVE_ORIGINS else ~interactive


def queue_position(match: Match) -> dict[str, Any]:
    """``ahead``: the queued matches served before this one; ``estimate_seconds``: until it
    starts and ends, or None without recent matches of its queue to go by."""
    interactive = match.origin in Match.INTERACTIVE_ORIGINS
    queued = Match.objects.filter(status=Match.Status.QUEUED)
    before = Q(pk__lt=match.pk) & _same_queue(match.origin)
    if not interactive:
        before |= Q(origin__in=Match.INTERACTIVE_ORIGINS)
    ahead = queued.filter(before).count()
    same = Match.objects.filter(_same_queue(match.origin))
    recent = same.filter(status=Match.Status.FINISHED, finished_at__gte=timezone.now() - RECENT)
    mean = recent.aggregate(mean=Avg(F("finished_at") - F("started_at")))["mean"]
    estimate = None
    if mean is not None:
        playing = max(1, same.filter(status=Match.Status.RUNNING).count())
        estimate = round((ahead + 1) * mean.total_seconds() / playing)
    return {"queue": "interactive" if interactive else "bulk", "ahead": ahead, "estimate_seconds": estimate}


def live_games(match: Match) -> list[dict[str, Any]]:
    """The games of a running match that have ended, in index order: of its chunks recorded and
    of the attempts of its chunks playing now (a chunk's earlier attempts' rows are removed when
    it is claimed again)."""
    if match.status != Match.Status.RUNNING:
        return []
    rows = LiveGame.objects.filter(match=match).order_by("index")
    return [
        {
            "index": index,
            "scores": scores,
            "ranks": ranks,
            "url": reverse("live-replay-viewer", args=[match.pk, index]),
        }
        for index, scores, ranks in rows.values_list("index", "scores", "ranks")
    ]


def _wait_text(seconds: int | None) -> str:
    if seconds is None:
        return ""
    if seconds < 90:
        return f" (about {max(seconds, 5)} seconds)"
    return f" (about {round(seconds / 60)} minutes)"


def match_progress(pk: int) -> dict[str, Any] | None:
    """What a match's page shows of its progress, as JSON. ``state`` changes when the page must
    be drawn again (the match started, ended or began another attempt); the rest changes as it
    goes."""
    match = Match.objects.filter(pk=pk).only("id", "status", "origin", "games", "games_played", "attempts").first()
    if match is None:
        return None
    data: dict[str, Any] = {
        "id": match.pk,
        "status": match.status,
        "state": f"{match.status}:{match.attempts}",
        "games": match.games,
        "games_played": match.games_played,
        "queue": None,
        "live_games": [],
    }
    if match.status == Match.Status.QUEUED:
        queue = queue_position(match)
        data["queue"] = queue
        ahead = queue["ahead"]
        others = "no match" if ahead == 0 else "1 match" if ahead == 1 else f"{ahead} matches"
        data["text"] = f"Waiting for a worker: {others} ahead of this one{_wait_text(queue['estimate_seconds'])}."
    elif match.status == Match.Status.RUNNING:
        data["live_games"] = live_games(match)
        data["games_played"] = max(match.games_played, len(data["live_games"]))
        data["text"] = f"Playing: {data['games_played']} of {match.games} games done."
    else:
        data["text"] = f"The match is {match.status}."
    return data
