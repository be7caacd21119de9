"""Tournament pages: the list, and one tournament with its entrants, every round's tables (each
match linking to its page and its replays), the standings after each round and, for a format
with a bracket, the bracket drawn as inline SVG (bracket.py; every match box links to its match),
for the others a cross-table.

``urlpatterns`` (relative to the site root) is included by the project's urls.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path
from django.utils import timezone
from django.views.decorators.http import require_POST

from bots.models import Bot, BotVersion
from lineit_platform.errors import ApplicationError
from tournaments.models import Match, Tournament
from tournaments.selectors.tournaments import (
    tournament_bracket,
    tournament_cross_table,
    tournament_rounds,
    tournament_slot_results,
    tournament_standings,
    tournament_winners,
)
from tournaments.services.tournaments.creation import tournament_sign_up

from .bracket import bracket_drawing


def running_and_upcoming(limit: int | None = None) -> dict[str, Any]:
    """Running tournaments (latest first), upcoming ones (soonest first) and the latest finished
    ones with their winners, for the home page."""
    tournaments = Tournament.objects.annotate(entry_count=Count("entries")).defer("state")
    finished = tournaments.filter(status=Tournament.Status.FINISHED).order_by("-finished_at")
    return {**_running_upcoming(limit), "finished": with_winners(list(finished[: limit or 50]))}


def _running_upcoming(limit: int | None = None) -> dict[str, Any]:
    tournaments = Tournament.objects.annotate(entry_count=Count("entries")).defer("state")
    running = tournaments.filter(status=Tournament.Status.RUNNING).order_by("-started_at")
    upcoming = tournaments.filter(status__in=Tournament.NOT_STARTED).order_by("starts_at")
    return {"running": running[:limit] if limit else running, "upcoming": upcoming[:limit] if limit else upcoming}


def with_winners(tournaments: list[Tournament]) -> list[Tournament]:
    """Sets ``winner`` (label and version, or None) on each finished tournament: three queries
    however many there are."""
    winners = tournament_winners([tournament.pk for tournament in tournaments])
    versions = {
        version.pk: version
        for version in BotVersion.objects.filter(pk__in=[w["entrant"] for w in winners.values()]).select_related("bot")
    }
    for tournament in tournaments:
        winner = winners.get(tournament.pk)
        tournament.winner = (
            None if winner is None else {"label": winner["label"], "object": versions.get(winner["entrant"])}
        )
    return tournaments


def tournament_list(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.annotate(entry_count=Count("entries")).defer("state")
    context = {
        **_running_upcoming(),
        "past": with_winners(
            list(
                tournaments.filter(status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED]).order_by(
                    "-finished_at"
                )[:50]
            )
        ),
    }
    return render(request, "tournaments/list.html", context)


def countdown(starts_at: datetime, now: datetime | None = None) -> str:
    """'starts in 2 d 3 h', 'starts in 2 h 13 min', 'starts in 4 min', 'starts in under a minute'."""
    left = int((starts_at - (now or timezone.now())).total_seconds())
    if left < 60:
        return "starts in under a minute"
    minutes, hours, days = left // 60 % 60, left // 3600 % 24, left // 86400
    if days:
        return f"starts in {days} d {hours} h"
    if hours:
        return f"starts in {hours} h {minutes} min"
    return f"starts in {minutes} min"


def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    entries = list(tournament.entries.select_related("bot", "version__bot").order_by("seed", "id"))
    versions = {entry.version_id: entry.version for entry in entries if entry.version_id}
    rounds = tournament_rounds(tournament)
    for round_ in rounds:
        for table in round_["tables"]:
            for seat in table["entrants"]:
                seat["object"] = versions.get(seat["version"])
            for row in table["result"] or []:
                row["object"] = versions.get(row["entrant"])
    standings = tournament_standings(tournament)
    for table in standings:
        for row in table["rows"]:
            row["object"] = versions.get(row["entrant"])
    bracket = tournament_bracket(tournament)
    cross = tournament_cross_table(tournament)
    if cross:
        for who in [*cross["entrants"], *cross["rows"]]:
            who["object"] = versions.get(who["entrant"])
    winner = None
    if tournament.status == Tournament.Status.FINISHED and standings and standings[-1]["rows"]:
        winner = standings[-1]["rows"][0]
    upcoming = tournament.status in Tournament.NOT_STARTED and tournament.starts_at > timezone.now()
    context = {
        "tournament": tournament,
        "entries": entries,
        "rounds": rounds,
        "standings": standings,
        "bracket": bracket_drawing(bracket, tournament_slot_results(tournament)) if bracket else None,
        "champion": versions.get(bracket["champion"]) if bracket and bracket.get("champion") else None,
        "winner": None if bracket else winner,
        "cross_table": cross,
        "countdown": countdown(tournament.starts_at) if upcoming else "",
        "my_bots": _my_bots(request, tournament),
        "live_state": progress_of(tournament)["state"] if tournament.status == Tournament.Status.RUNNING else "",
    }
    return render(request, "tournaments/detail.html", context)


def tournament_progress(request: HttpRequest, pk: int) -> JsonResponse:
    """What a running tournament's page polls (web/live.js): its round, and the matches and
    games of that round played so far. ``state`` changes when a match of the round ends or a new
    round starts: the page is drawn again then, with the results."""
    tournament = get_object_or_404(Tournament.objects.only("id", "status", "round_number"), pk=pk)
    return JsonResponse(progress_of(tournament))


def progress_of(tournament: Tournament) -> dict[str, Any]:
    matches = Match.objects.filter(tournament=tournament, tournament_round=tournament.round_number)
    counts = matches.aggregate(
        total=Count("id"),
        ended=Count("id", filter=~Q(status__in=Match.PENDING)),
        games=Sum("games"),
        played=Sum("games_played"),
    )
    ended, total = counts["ended"], counts["total"]
    data = {
        "id": tournament.pk,
        "status": tournament.status,
        "round": tournament.round_number,
        "state": f"{tournament.status}:{tournament.round_number}:{ended}",
        "matches": total,
        "matches_ended": ended,
        "games": counts["games"] or 0,
        "games_played": counts["played"] or 0,
    }
    if tournament.status == Tournament.Status.RUNNING:
        data["text"] = (
            f"Playing round {tournament.round_number}: {ended} of {total} matches done, "
            f"{data['games_played']} of {data['games']} games played."
        )
    else:
        data["text"] = f"The tournament is {tournament.get_status_display().lower()}."
    return data


def _my_bots(request: HttpRequest, tournament: Tournament) -> list[Bot]:
    if not request.user.is_authenticated or tournament.status != Tournament.Status.OPEN:
        return []
    entered = tournament.entries.values_list("bot_id", flat=True)
    return list(Bot.objects.filter(owner=request.user, versions__status="active").exclude(pk__in=entered).distinct())


@login_required
@require_POST
def tournament_sign_up_view(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    raw = request.POST.get("bot", "")
    # ASCII digits only: str.isdigit() also takes '²', which int() refuses.
    bot = Bot.objects.filter(pk=int(raw)).first() if raw.isascii() and raw.isdigit() and len(raw) < 19 else None
    if bot is None:
        messages.error(request, "Choose one of your bots.")
        return redirect("tournament-detail", pk=pk)
    try:
        tournament_sign_up(tournament=tournament, bot=bot, user=request.user)
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"{bot.name} is signed up; its newest active version is frozen in at the start.")
    return redirect("tournament-detail", pk=pk)


urlpatterns: list[URLPattern] = [
    path("tournaments/", tournament_list, name="tournament-list"),
    path("tournaments/<int:pk>/", tournament_detail, name="tournament-detail"),
    path("tournaments/<int:pk>/progress.json", tournament_progress, name="tournament-progress"),
    path("tournaments/<int:pk>/sign-up/", tournament_sign_up_view, name="tournament-sign-up"),
]
