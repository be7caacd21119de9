"""Tournament pages: the list, and one tournament with its entrants, every round's tables (each
match linking to its page and its replays), the standings after each round and, for elimination,
the bracket drawn as inline SVG (every match box links to its match).

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

# The bracket drawing, in SVG user units (pixels).
BOX_WIDTH = 210
LINE = 18  # one text line of a box
GAP_X = 44
GAP_Y = 14
MARGIN = 8
BAND_GAP = 36
TAP = 44  # a replay link's target, square (WCAG 2.5.5: at least 44 by 44 CSS pixels)
TAP_GAP = 4


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


# --- The bracket as SVG -------------------------------------------------------------------------


def bracket_drawing(
    bracket: dict[str, Any], results: dict[str, dict[int, dict[str, Any]]] | None = None
) -> dict[str, Any]:
    """Boxes and connecting lines of an elimination bracket, laid out as a tree: one column per
    bracket round, the winners' bracket above the losers', the grand final(s) to the right; for
    double elimination each part labelled. ``results``: each slot's result per entrant
    (``tournament_slot_results``), for the scores in the boxes."""
    results = results or {}
    matches = {match["id"]: match for match in bracket["matches"]}
    double = any(match["section"] == "losers" for match in bracket["matches"])
    sources = {key: [_source(slot["from"]) for slot in match["slots"]] for key, match in matches.items()}
    band = {key: 1 if match["section"] == "losers" else 0 for key, match in matches.items()}
    column = _columns(bracket["matches"])
    slots = max(len(match["slots"]) for match in bracket["matches"])
    height = (slots + 1) * LINE + 2 * TAP_GAP + TAP
    order = _tree_order(matches, sources, band, column)
    top: dict[str, float] = {}
    bottoms = [0.0, 0.0]
    for number in (0, 1):
        offset = (MARGIN + (LINE if double else 0)) if number == 0 else bottoms[0] + BAND_GAP
        placed: dict[int, float] = {}
        for key in sorted(
            (k for k in order if band[k] == number and not _is_final(matches[k])), key=column.__getitem__
        ):
            feeders = [top[s] for s in sources[key] if s in top and band[s] == number]
            wanted = sum(feeders) / len(feeders) if feeders else offset
            y = max(wanted, placed.get(column[key], offset))
            top[key] = y
            placed[column[key]] = y + height + GAP_Y
        bottoms[number] = max([offset, *placed.values()])
    for key in sorted((k for k in matches if _is_final(matches[k])), key=column.__getitem__):
        feeders = [top[s] for s in sources[key] if s in top]
        top[key] = sum(feeders) / len(feeders) if feeders else MARGIN
    names = bracket.get("names", {})
    boxes = [_box(matches[key], column[key], top[key], height, names, results.get(key, {})) for key in order]
    bands = []
    if double:
        finals = [key for key in matches if _is_final(matches[key])]
        bands = [
            {"label": "Winners bracket", "x": MARGIN, "y": MARGIN + LINE - 5},
            {"label": "Losers bracket", "x": MARGIN, "y": bottoms[0] + BAND_GAP - 8},
        ]
        if finals:
            first = min(finals, key=column.__getitem__)
            label = "Grand final" if len(finals) == 1 else "Grand finals"
            bands.append({"label": label, "x": MARGIN + column[first] * (BOX_WIDTH + GAP_X), "y": top[first] - 8})
    # Lines inside a band and into the final; a drop from the winners' bracket into the losers' is
    # named in its slot instead (a line across the bands would cross everything).
    lines = [
        _line(column[source], top[source], column[key], top[key], slot, height)
        for key in order
        for slot, source in enumerate(sources[key])
        if source in top and (band[source] == band[key] or _is_final(matches[key]))
    ]
    width = (max(column.values()) + 1) * (BOX_WIDTH + GAP_X) - GAP_X + 2 * MARGIN
    return {
        "width": width,
        "height": max(top.values()) + height + MARGIN,
        "boxes": boxes,
        "lines": lines,
        "bands": bands,
        "box_width": BOX_WIDTH,
        "tap": TAP,
    }


def _source(text: str) -> str:
    """'W1-2 #1' -> 'W1-2'; 'seed 3' -> ''."""
    return "" if text.startswith("seed") else text.split(" #")[0]


def _is_final(match: dict[str, Any]) -> bool:
    return match["section"] == "final" and not match["id"].startswith("W")


def _columns(matches: list[dict[str, Any]]) -> dict[str, int]:
    column = {m["id"]: m["round"] - 1 for m in matches if not _is_final(m)}
    last = max(column.values(), default=-1)
    finals = sorted({m["round"] for m in matches if _is_final(m)})
    for match in matches:
        if _is_final(match):
            column[match["id"]] = last + 1 + finals.index(match["round"])
    return column


def _tree_order(
    matches: dict[str, Any], sources: dict[str, list[str]], band: dict[str, int], column: dict[str, int]
) -> list[str]:
    """Matches so that the two (or more) that feed one match are drawn next to each other: a walk
    back from each band's last round through its feeders, earliest rounds first."""
    seen: list[str] = []

    def visit(key: str) -> None:
        if key in seen:
            return
        for source in sources[key]:
            if source in matches and band[source] == band[key] and not _is_final(matches[source]):
                visit(source)
        seen.append(key)

    for key in sorted(matches, key=lambda k: (-column[k], k)):
        if not _is_final(matches[key]):
            visit(key)
    return seen + sorted(k for k in matches if k not in seen)


def _box(
    match: dict[str, Any],
    column: int,
    top: float,
    height: int,
    names: dict[str, str],
    results: dict[int, dict[str, Any]],
) -> dict[str, Any]:
    x = MARGIN + column * (BOX_WIDTH + GAP_X)
    placed = {entrant: place for place, entrant in enumerate(match["result"] or [], start=1)}
    rows = []
    for number, slot in enumerate(match["slots"]):
        entrant = slot["entrant"]
        label = names.get(str(entrant), "") if entrant is not None else slot["from"]
        result = results.get(entrant) if entrant is not None else None
        rows.append(
            {
                "y": top + (number + 2) * LINE - 5,
                "label": label or "—",
                "from": slot["from"],
                "known": entrant is not None,
                "place": placed.get(entrant) if entrant is not None else None,
                "won": match["result"] is not None and placed.get(entrant) == 1,
                "score": None if result is None else f"{round(result['points'], 2):g}",
                "detail": ""
                if result is None
                else f"{result['points']:.2f} points, mean rank {result['mean_rank']:.2f} over {result['games']} games",
            }
        )
    platform = match.get("match") or {}
    games = platform.get("games", [])
    fits = (BOX_WIDTH - TAP_GAP) // (TAP + TAP_GAP)
    shown = games if len(games) <= fits else games[: fits - 1]
    tap_y = top + height - TAP_GAP - TAP
    return {
        "id": match["id"],
        "status": match["status"],
        "x": x,
        "y": top,
        "height": height,
        "title_y": top + LINE - 5,
        "score_x": x + BOX_WIDTH - 8,
        "tap_y": tap_y,
        "tap_text_y": tap_y + TAP / 2 + 5,
        "rows": rows,
        "match_id": platform.get("id"),
        "match_status": platform.get("status"),
        "games": [
            {"id": game, "x": x + TAP_GAP + index * (TAP + TAP_GAP), "number": index + 1}
            for index, game in enumerate(shown)
        ],
        "more": len(games) - len(shown),
        "more_x": x + TAP_GAP + len(shown) * (TAP + TAP_GAP),
    }


def _line(from_column: int, from_top: float, to_column: int, to_top: float, slot: int, height: int) -> str:
    """An elbow from the right of the feeding box to the left of the slot it fills."""
    x1 = MARGIN + from_column * (BOX_WIDTH + GAP_X) + BOX_WIDTH
    y1 = from_top + height / 2
    x2 = MARGIN + to_column * (BOX_WIDTH + GAP_X)
    y2 = to_top + (slot + 2) * LINE - 9
    middle = x2 - GAP_X / 2
    return f"M{x1:.0f} {y1:.0f} H{middle:.0f} V{y2:.0f} H{x2:.0f}"


urlpatterns: list[URLPattern] = [
    path("tournaments/", tournament_list, name="tournament-list"),
    path("tournaments/<int:pk>/", tournament_detail, name="tournament-detail"),
    path("tournaments/<int:pk>/progress.json", tournament_progress, name="tournament-progress"),
    path("tournaments/<int:pk>/sign-up/", tournament_sign_up_view, name="tournament-sign-up"),
]
