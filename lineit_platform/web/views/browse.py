"""The browsing pages: every match (filtered, paged), every bot, the full leaderboard per ruleset
and table size, and a user's page. The reads are the API's (tournaments/selectors: match_list
and match_rows, leaderboard and leaderboard_rows) or tournaments/selectors/browse.py's; a page
costs the same queries for 1 row as for 25. A bad filter value is a 400 with the form's message;
a name that matches nothing is an empty page that says so."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.core.validators import RegexValidator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from bots.models import BOT_NAME_PATTERN, Bot, BotVersion
from lineit.engine import MAX_PLAYERS, MIN_PLAYERS, RULES_VERSION, RULESETS
from tournaments.models import Match
from tournaments.selectors.browse import (
    bot_list,
    leaderboard_extras,
    matches_of_owner,
    played_at_size,
)
from tournaments.selectors.matches import head_to_head, match_list, match_rows
from tournaments.selectors.ratings import active_leaderboard, leaderboard, leaderboard_rows

from ..plots import rating_plot
from ..selectors import rating_history

USERNAME_PATTERN = re.compile(r"[\w.@+-]+")  # django.contrib.auth's UnicodeUsernameValidator
PER_PAGE = 25
MAX_ID = 2**63 - 1
MAX_PAGE = 1_000_000
RULESET_CHOICES = [("", "any")] + [(name, name) for name in RULESETS]
PLAYER_CHOICES = [("", "any")] + [(str(n), str(n)) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
YES_NO = [("", "any"), ("yes", "yes"), ("no", "no")]

bot_name_field = RegexValidator(BOT_NAME_PATTERN, "Not a bot name.")


class _Filters(forms.Form):
    page = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE)


class MatchFilterForm(_Filters):
    bot = forms.CharField(required=False, max_length=40, validators=[bot_name_field])
    version = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID, help_text="a version number of the bot")
    ruleset = forms.ChoiceField(required=False, choices=RULESET_CHOICES)
    players = forms.TypedChoiceField(required=False, choices=PLAYER_CHOICES, coerce=int, empty_value=None)
    status = forms.ChoiceField(required=False, choices=[("", "any"), *Match.Status.choices])
    ranked = forms.ChoiceField(required=False, choices=YES_NO)
    origin = forms.ChoiceField(required=False, choices=[("", "any"), *Match.Origin.choices])
    tournament = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    requested_by = forms.CharField(required=False, max_length=150)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("version") is not None and not data.get("bot"):
            raise forms.ValidationError("A version number needs its bot: add bot=<name>.")
        return data


class BotFilterForm(_Filters):
    search = forms.CharField(required=False, max_length=40, label="Name contains")
    owner = forms.CharField(required=False, max_length=150)


class LeaderboardFilterForm(_Filters):
    ruleset = forms.ChoiceField(required=False, choices=RULESET_CHOICES[1:])
    players = forms.TypedChoiceField(
        required=False, choices=PLAYER_CHOICES, coerce=int, empty_value=None, label="Table size"
    )
    order = forms.ChoiceField(required=False, choices=[("elo", "Elo"), ("conservative", "conservative estimate")])


def _page(request: HttpRequest, rows: QuerySet[Any], number: int | None) -> Page[Any]:
    """One page of ``rows`` (a number past the last gives the last page)."""
    return Paginator(rows, PER_PAGE).get_page(number or 1)


def _query_without_page(request: HttpRequest) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


def _bad_filters(request: HttpRequest, template: str, form: forms.Form, context: dict[str, Any]) -> HttpResponse:
    errors = [
        f"{name}: {error}" if name != "__all__" else str(error) for name, errs in form.errors.items() for error in errs
    ]
    return render(request, template, {**context, "form": form, "errors": errors, "page": None}, status=400)


# --- /matches/ ---------------------------------------------------------------------------------


def match_list_page(request: HttpRequest) -> HttpResponse:
    form = MatchFilterForm(request.GET)
    if not form.is_valid():
        return _bad_filters(request, "web/match_list.html", form, {"matches": []})
    data = form.cleaned_data
    matches, missing = _filtered_matches(data)
    page = _page(request, matches.order_by("-id"), data["page"])
    rows = match_rows(page.object_list) if not missing else []
    context = {
        "form": form,
        "page": page,
        "matches": rows,
        "missing": missing,
        "query": _query_without_page(request),
        "bot_name": data["bot"],
        "version_number": data["version"],
        "bot_found": bool(data["bot"]) and missing != _no_bot(data["bot"]),
    }
    return render(request, "web/match_list.html", context)


def _filtered_matches(data: dict[str, Any]) -> tuple[QuerySet[Match], str]:
    """The matches the filters pick, and what was named but does not exist ("" if nothing)."""
    matches = match_list()
    if data["bot"]:
        bot = Bot.objects.filter(name=data["bot"]).values_list("pk", flat=True).first()
        if bot is None:
            return matches.none(), _no_bot(data["bot"])
        if data["version"] is not None:
            version = BotVersion.objects.filter(bot_id=bot, number=data["version"]).values_list("pk", flat=True).first()
            if version is None:
                return matches.none(), f"{data['bot']} has no version {data['version']}."
            matches = matches.played_by_version(version)
        else:
            matches = matches.played_by_bot(bot)
    fields = {"ruleset": "ruleset", "players": "num_players", "status": "status", "origin": "origin"}
    for name, field in fields.items():
        if data[name] not in (None, ""):
            matches = matches.filter(**{field: data[name]})
    if data["ranked"]:
        matches = matches.filter(ranked=data["ranked"] == "yes")
    if data["tournament"] is not None:
        matches = matches.filter(tournament_id=data["tournament"])
    if data["requested_by"]:
        matches = matches.filter(requested_by__username=data["requested_by"])
    return matches, ""


def _no_bot(name: str) -> str:
    return f"No bot is named {name}."


# --- /bots/ ------------------------------------------------------------------------------------


def bot_list_page(request: HttpRequest) -> HttpResponse:
    form = BotFilterForm(request.GET)
    if not form.is_valid():
        return _bad_filters(request, "web/bot_list.html", form, {"bots": []})
    data = form.cleaned_data
    bots = bot_list(ruleset=RULESETS[0])
    if data["search"]:
        bots = bots.filter(name__icontains=data["search"])
    if data["owner"]:
        bots = bots.filter(owner__username=data["owner"])
    page = _page(request, bots, data["page"])
    context = {
        "form": form,
        "page": page,
        "bots": list(page.object_list),
        "ruleset": RULESETS[0],
        "query": _query_without_page(request),
    }
    return render(request, "web/bot_list.html", context)


# --- /leaderboard/ -----------------------------------------------------------------------------


def leaderboard_page(request: HttpRequest) -> HttpResponse:
    form = LeaderboardFilterForm(request.GET)
    context: dict[str, Any] = {"rulesets": RULESETS, "player_choices": PLAYER_CHOICES[1:], "rows": []}
    if not form.is_valid():
        return _bad_filters(request, "web/leaderboard.html", form, {**context, "ruleset": RULESETS[0], "order": "elo"})
    data = form.cleaned_data
    ruleset, players, order = data["ruleset"] or RULESETS[0], data["players"], data["order"] or "elo"
    ratings = leaderboard(order).filter(
        ruleset=ruleset, rules_version=RULES_VERSION, version__status=BotVersion.Status.ACTIVE
    )
    if players is not None:
        ratings = played_at_size(ratings, ruleset=ruleset, players=players)
    page = _page(request, ratings, data["page"])
    rows = leaderboard_rows(page.object_list, first_rank=page.start_index() or 1)
    leaderboard_extras(rows, ruleset=ruleset, players=players)
    context.update(
        form=form,
        page=page,
        rows=rows,
        ruleset=ruleset,
        players=players,
        order=order,
        rules_version=RULES_VERSION,
        query=_query_without_page(request),
    )
    return render(request, "web/leaderboard.html", context)


# --- /users/<name>/ ----------------------------------------------------------------------------


def user_page(request: HttpRequest, username: str) -> HttpResponse:
    # Only what a username can be reaches the database (a NUL, which PostgreSQL cannot even
    # compare, would be a server error).
    if len(username) > 150 or not USERNAME_PATTERN.fullmatch(username):
        raise Http404("no such user")
    user = get_object_or_404(get_user_model().objects.only("pk", "username", "date_joined"), username=username)
    bots = list(bot_list(ruleset=RULESETS[0]).filter(owner=user))
    results = match_rows(matches_of_owner(match_list(), user.pk).order_by("-id")[:15])
    context = {"owner": user, "bots": bots, "ruleset": RULESETS[0], "matches": results}
    return render(request, "web/user_detail.html", context)


# --- Sections of a version's page (pages.version_detail) --------------------------------------


def version_sections(request: HttpRequest, version: BotVersion) -> dict[str, Any]:
    """What a version's page shows beside its own record: its rating plot (its series of the
    bot's history), its head-to-head record per opponent bot, and for its owner (or staff) the
    download of its source (the API's, which session sign-in reaches)."""
    number = f"v{version.number} "
    series = [item for item in rating_history(version.bot) if item.label.startswith(number)]
    owner = request.user.is_authenticated and (request.user.pk == version.bot.owner_id or request.user.is_staff)
    return {
        "plot": rating_plot(series, title=f"Rating history of {version.label}"),
        "head_to_head": head_to_head(version),
        "source_url": reverse("api-version-source", args=[version.pk]) if owner else None,
    }


# --- Sections of the home page (pages.home) ------------------------------------------------------


def home_sections(*, order: str) -> dict[str, Any]:
    """The home page's boards and matches: the rulesets with rated versions get a board each
    (``leaderboards``), the others only their names (``unrated_rulesets``); finished matches
    with their winners marked (``recent_matches``) apart from the ones queued or running
    (``pending_matches``, next to run first)."""
    boards = [(ruleset, active_leaderboard(ruleset, order=order)) for ruleset in RULESETS]
    matches = match_list()
    results = match_rows(matches.exclude(status__in=Match.PENDING).order_by("-id")[:15])
    return {
        "leaderboards": [(ruleset, rows) for ruleset, rows in boards if rows],
        "unrated_rulesets": [ruleset for ruleset, rows in boards if not rows],
        "recent_matches": results,
        "pending_matches": match_rows(matches.filter(status__in=Match.PENDING).order_by("id")[:10]),
    }
