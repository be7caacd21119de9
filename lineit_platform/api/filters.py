"""Query filters of the list endpoints (django-filter). Every value is bounded, so no input can
reach the database as something it cannot hold: bad values are a 400, never a server error."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import forms
from django.db.models import QuerySet
from django_filters import rest_framework as filters

from bots.models import Bot, BotVersion
from lineit_platform.engine import RULES_VERSION, RULESETS
from tournaments.models import Game, Match, MatchEntrant, Rating, RatingEvent, Tournament

MAX_ID = 2**63 - 1
RULESET_CHOICES = [(name, name) for name in RULESETS]


class IdField(forms.IntegerField):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class IdFilter(filters.NumberFilter):
    field_class = IdField


class StrictBooleanField(forms.NullBooleanField):
    """true/false (or 1/0); anything else is an error rather than silently no filter."""

    VALUES = {"true": True, "1": True, "false": False, "0": False}

    def to_python(self, value: Any) -> bool | None:
        if value in (None, ""):
            return None
        if isinstance(value, bool):
            return value
        try:
            return self.VALUES[str(value).strip().lower()]
        except KeyError:
            raise forms.ValidationError("Use true or false.", code="invalid") from None

    def validate(self, value: Any) -> None:
        pass


class BooleanFilter(filters.BooleanFilter):
    field_class = StrictBooleanField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["widget"] = forms.TextInput  # the default widget turns any unknown word into "no filter"
        super().__init__(*args, **kwargs)


class BoundedDateTimeField(forms.DateTimeField):
    """ISO 8601 date-times, with a clear message (not a server error) for years the database and
    time zone arithmetic cannot hold."""

    def to_python(self, value: Any) -> datetime | None:
        try:
            result = super().to_python(value)
        except OverflowError:
            raise forms.ValidationError("Date-time out of range.", code="invalid") from None
        if result is not None and not 1900 <= result.year <= 9000:
            raise forms.ValidationError("Use a year from 1900 to 9000.", code="invalid")
        return result


class DateTimeFilter(filters.IsoDateTimeFilter):
    field_class = BoundedDateTimeField


class BotFilter(filters.FilterSet):
    name = filters.CharFilter(field_name="name", lookup_expr="iexact", max_length=40)
    search = filters.CharFilter(field_name="name", lookup_expr="icontains", max_length=40)
    owner = filters.CharFilter(field_name="owner__username", max_length=150)
    is_builtin = BooleanFilter()

    class Meta:
        model = Bot
        fields = ["name", "search", "owner", "is_builtin"]


class VersionFilter(filters.FilterSet):
    bot = IdFilter(field_name="bot_id")
    status = filters.ChoiceFilter(choices=BotVersion.Status.choices)
    sha256 = filters.CharFilter(max_length=64)

    class Meta:
        model = BotVersion
        fields = ["bot", "status", "sha256"]


class MatchFilter(filters.FilterSet):
    bot = IdFilter(method="filter_bot", help_text="Matches in which any version of this bot played.")
    version = IdFilter(method="filter_version", help_text="Matches in which this version played.")
    status = filters.ChoiceFilter(choices=Match.Status.choices)
    ruleset = filters.ChoiceFilter(choices=RULESET_CHOICES)
    ranked = BooleanFilter()
    origin = filters.ChoiceFilter(choices=Match.Origin.choices)
    requested_by = filters.CharFilter(field_name="requested_by__username", max_length=150)
    tournament = IdFilter(field_name="tournament_id")
    tournament_round = filters.NumberFilter(field_name="tournament_round", min_value=0, max_value=1_000_000)
    created_after = DateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = DateTimeFilter(field_name="created_at", lookup_expr="lt")
    finished_after = DateTimeFilter(field_name="finished_at", lookup_expr="gte")
    finished_before = DateTimeFilter(field_name="finished_at", lookup_expr="lt")

    class Meta:
        model = Match
        fields = ["bot", "version", "status", "ruleset", "ranked", "origin", "requested_by", "tournament"]

    # A subquery rather than a join: a version seated twice must not list its match twice.
    def filter_bot(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(pk__in=MatchEntrant.objects.filter(version__bot_id=value).values("match_id"))

    def filter_version(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(pk__in=MatchEntrant.objects.filter(version_id=value).values("match_id"))


class GameFilter(filters.FilterSet):
    match = IdFilter(field_name="match_id")

    class Meta:
        model = Game
        fields = ["match"]


class LeaderboardFilter(filters.FilterSet):
    ruleset = filters.ChoiceFilter(choices=RULESET_CHOICES, empty_label=None)
    rules_version = filters.CharFilter(max_length=20)
    bot = IdFilter(field_name="version__bot_id")
    status = filters.ChoiceFilter(field_name="version__status", choices=BotVersion.Status.choices)
    provisional = BooleanFilter(method="filter_provisional")

    class Meta:
        model = Rating
        fields = ["ruleset", "rules_version", "bot", "status"]

    def filter_queryset(self, queryset: QuerySet[Rating]) -> QuerySet[Rating]:
        # One ruleset and rules version at a time: ratings only compare within one.
        data = self.form.cleaned_data
        queryset = queryset.filter(
            ruleset=data.get("ruleset") or RULESETS[0], rules_version=data.get("rules_version") or RULES_VERSION
        )
        return super().filter_queryset(queryset)

    def filter_provisional(self, queryset: QuerySet[Rating], name: str, value: bool | None) -> QuerySet[Rating]:
        from lineit_platform.ratings import PROVISIONAL_GAMES

        return queryset.filter(games__lt=PROVISIONAL_GAMES) if value else queryset.filter(games__gte=PROVISIONAL_GAMES)


class RatingHistoryFilter(filters.FilterSet):
    ruleset = filters.ChoiceFilter(choices=RULESET_CHOICES)
    rules_version = filters.CharFilter(max_length=20)

    class Meta:
        model = RatingEvent
        fields = ["ruleset", "rules_version"]


class TournamentFilter(filters.FilterSet):
    status = filters.ChoiceFilter(choices=Tournament.Status.choices)
    format = filters.ChoiceFilter(choices=Tournament.Format.choices)
    ruleset = filters.ChoiceFilter(choices=RULESET_CHOICES)
    ranked = BooleanFilter()

    class Meta:
        model = Tournament
        fields = ["status", "format", "ruleset", "ranked"]
