"""Public pages: home, bot, version, match and the replay viewer. Owner-only details (a bot's
failure messages and stderr, its validation report's message) are decided by bots.models'
``reads_text_of`` (``visible_details_for``), the one place for that rule."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from bots.models import Bot, BotVersion, reads_text_of
from lineit.botkit.untrusted import safe_text
from lineit.engine import ReplayError
from lineit_platform.replay_signing import public_key_answer, signed_replay
from tournaments.models import Game, LiveGame, Match
from tournaments.selectors.matches import Row, head_to_head, recent_matches
from tournaments.selectors.matches import match_detail as read_match
from tournaments.selectors.progress import match_progress as read_progress

from .. import health, selectors
from ..plots import rating_plot
from ..replay import replay_sections, replay_view
from ..tournaments import running_and_upcoming
from . import browse


def home(request: HttpRequest) -> HttpResponse:
    order = "conservative" if request.GET.get("order") == "conservative" else "elo"
    context = {
        **browse.home_sections(order=order),
        "order": order,
        "tournaments": running_and_upcoming(limit=5),
    }
    return render(request, "web/home.html", context)


def bot_detail(request: HttpRequest, name: str) -> HttpResponse:
    bot = get_object_or_404(Bot.objects.select_related("owner"), name=name)
    is_owner = request.user.is_authenticated and (request.user.pk == bot.owner_id or request.user.is_staff)
    versions = health.with_health(selectors.bot_versions(bot))
    context = {
        "bot": bot,
        "is_owner": is_owner,
        "versions": versions,
        **health.bot_health(versions),
        "plot": rating_plot(selectors.rating_history(bot), title=f"Rating history of {bot.name}"),
        "recent_matches": recent_matches(limit=15, bot=bot),
        "head_to_head": head_to_head(bot),
    }
    return render(request, "web/bot_detail.html", context)


def _version(name: str, number: int) -> BotVersion:
    return get_object_or_404(BotVersion.objects.select_related("bot__owner"), bot__name=name, number=number)


def version_detail(request: HttpRequest, name: str, number: int) -> HttpResponse:
    version = _version(name, number)
    context = {
        "version": version,
        "bot": version.bot,
        "show_details": version.visible_details_for(request.user),
        "ratings": version.ratings.order_by("ruleset", "rules_version"),
        **health.version_health(version),
        **browse.version_sections(request, version),
    }
    return render(request, "web/version_detail.html", context)


def version_status(request: HttpRequest, name: str, number: int) -> JsonResponse:
    """What the upload page polls while a new version is validated. It shows the texts as they
    are, so they come escaped as the pages escape them (safe_text)."""
    version = _version(name, number)
    data = {
        "label": version.label,
        "status": version.status,
        "state": version.status,  # what the version page's web/live.js reloads on when it changes
        "rejection_reason": safe_text(version.rejection_summary),
        "url": reverse("version-detail", args=[version.bot.name, version.number]),
    }
    if version.visible_details_for(request.user):
        data["message"] = safe_text(version.rejection_message)
        data["stderr"] = safe_text(version.rejection_stderr, keep_newlines=True)
    return JsonResponse(data)


def match_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The match as the API's detail reads it (tournaments.selectors.matches.match_detail), laid
    out by seat; a failure's message and stderr tail are None for a viewer who may not read them."""
    detail = read_match(pk, reads_text_of=partial(reads_text_of, request.user))
    if detail is None:
        raise Http404(f"no match {pk}")
    match = detail.match
    context = {
        "match": match,
        "pending": match["status"] in Match.PENDING,
        "entrants": match["entrants"],
        "games": _games_by_seat(match),
        "failures": _failures(match),
    }
    return render(request, "web/match_detail.html", context)


def _games_by_seat(match: Row) -> list[dict[str, Any]]:
    """Each game, with a row per seat: who sat there, score, rank, forfeit."""
    by_index = {entrant["index"]: entrant for entrant in match["entrants"]}
    return [
        {
            "game": game,
            "seats": [
                {
                    "seat": seat,
                    "entrant": by_index.get(entrant),
                    "score": game["scores"][seat],
                    "rank": game["ranks"][seat],
                    "forfeit": seat in game["forfeits"],
                }
                for seat, entrant in enumerate(game["seats"])
            ],
        }
        for game in match["game_logs"]
    ]


def _failures(match: Row) -> list[dict[str, Any]]:
    """Every failure of the match, in game and seat order, with its game and its version's label."""
    labels = {entrant["version"]: entrant["label"] for entrant in match["entrants"]}
    return [
        failure | {"game": game, "label": labels.get(failure["version"], "")}
        for game in match["game_logs"]
        for failure in game["failures"]
    ]


def match_progress(request: HttpRequest, pk: int) -> JsonResponse:
    """What a pending match's page polls (tournaments/selectors/progress.py): its queue position
    and estimate, or its games as they end."""
    data = read_progress(pk)
    if data is None:
        raise Http404(f"no match {pk}")
    return JsonResponse(data)


def live_replay_viewer(request: HttpRequest, pk: int, index: int) -> HttpResponse:
    """A game of a running match, watched before the match ends (its LiveGame row); once the
    match ends, the game's own replay page."""
    match = get_object_or_404(Match.objects.only("id", "status", "attempts"), pk=pk)
    game = LiveGame.objects.filter(match=match, attempt=match.attempts, index=index).first()
    if game is None or match.status != Match.Status.RUNNING:
        ended = Game.objects.filter(match=match, index=index).values_list("pk", flat=True).first()
        if ended is None:
            raise Http404(f"game {index} of match {pk} is not being played")
        return redirect("replay-viewer", ended)
    return _replay_page(
        request,
        game=game,
        match=match,
        document=game.replay_document(),
        forfeits=None,
        json_url=reverse("live-replay-json", args=[pk, index]),
        view_url=reverse("live-replay-view-json", args=[pk, index]),
    )


def live_replay_view_json(request: HttpRequest, pk: int, index: int) -> JsonResponse:
    """The positions the viewer draws for a game still being played (its LiveGame row)."""
    game = get_object_or_404(
        LiveGame.objects.only("replay"), match_id=pk, index=index, match__status=Match.Status.RUNNING
    )
    return _view_json(game.replay_document())


def live_replay_json(request: HttpRequest, pk: int, index: int) -> JsonResponse:
    game = get_object_or_404(
        LiveGame.objects.only("replay"), match_id=pk, index=index, match__status=Match.Status.RUNNING
    )
    return JsonResponse(signed_replay(game.replay_document()))


def replay_public_key_pem(request: HttpRequest) -> HttpResponse:
    """/.well-known/lineit-replay-key.pem: the public key of the site's replay signatures, the
    file `lineit verify --key` reads (the API's /api/replays/public-key/ holds the same)."""
    response = HttpResponse(public_key_answer()["pem"], content_type="application/x-pem-file")
    response["Content-Disposition"] = 'inline; filename="lineit-replay-key.pem"'
    response["Cache-Control"] = "public, max-age=3600"
    return response


def replay_viewer(request: HttpRequest, pk: int) -> HttpResponse:
    game = get_object_or_404(Game.objects.select_related("match"), pk=pk)
    try:
        document = game.replay_document()
    except (ValueError, TypeError) as error:
        raise Http404(f"replay of game {pk} is unreadable") from error
    return _replay_page(
        request,
        game=game,
        match=game.match,
        document=document,
        forfeits=list(game.forfeits),
        json_url=reverse("replay-json", args=[game.pk]),
        view_url=reverse("replay-view-json", args=[game.pk]),
    )


def replay_view_json(request: HttpRequest, pk: int) -> JsonResponse:
    """The positions the viewer draws (lineit_platform/web/replay.py's ``replay_view``), fetched
    by static/web/replay.js: the page itself carries only the log of decisions."""
    game = get_object_or_404(Game.objects.only("replay", "forfeits"), pk=pk)
    try:
        document = game.replay_document()
    except (ValueError, TypeError) as error:
        raise Http404(f"replay of game {pk} is unreadable") from error
    return _view_json(document, list(game.forfeits))


def _view_json(document: dict[str, Any], forfeits: list[int] | None = None) -> JsonResponse:
    try:
        view = _checked_view(document, forfeits)
    except ReplayError as error:
        return JsonResponse({"error": f"the engine could not re-run this replay: {error}"}, status=422)
    return JsonResponse(view)


def _checked_view(document: dict[str, Any], forfeits: list[int] | None) -> dict[str, Any]:
    """``replay_view``, checked against the match's stored record of forfeits (the authority), or
    None for a game still being played, whose forfeits are only the replay's own until the
    match's result is recorded. Raises ReplayError."""
    view = replay_view(document)
    # The match's stored failures are the authority on forfeits (and so on the ranks): the
    # replay's are shown against them, a difference as a warning.
    if forfeits is not None and sorted(view["forfeits"]) != sorted(forfeits) and not view["warning"]:
        view["warning"] = f"the replay names forfeits {view['forfeits']}, the match's records {forfeits}"
    return view


def _replay_page(
    request: HttpRequest,
    *,
    game: Game | LiveGame,
    match: Match,
    document: dict[str, Any],
    forfeits: list[int] | None,
    json_url: str,
    view_url: str,
) -> HttpResponse:
    """The replay viewer. ``forfeits``: the match's stored record of them (the authority), or
    None for a game still being played, whose forfeits are only the replay's own until the
    match's result is recorded."""
    context: dict[str, object] = {
        "game": game,
        "match": match,
        "document": document,
        "json_url": json_url,
        "view_url": view_url,
        "live": forfeits is None,
    }
    try:
        view = _checked_view(document, forfeits)
    except ReplayError as error:
        context["error"] = str(error)
        return render(request, "web/replay.html", context, status=200)
    if forfeits is None:
        forfeits = list(view["forfeits"])
    result = [
        {"seat": seat, "name": name, "score": score, "rank": rank, "forfeit": seat in forfeits}
        for seat, (name, score, rank) in enumerate(zip(view["players"], view["scores"], game.ranks, strict=False))
    ]
    context.update(view=view, sections=replay_sections(view), result=result)
    return render(request, "web/replay.html", context)
