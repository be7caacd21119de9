"""Query filters of the list endpoints (django-filter). Every value is bounded, so no input can
reach the database as something it cannot hold: bad values are a 400, never a server error."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from django import forms
from django.db.models import QuerySet
from django.http import QueryDict
from django_filters import rest_framework as filters
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.request import Request

from bots.models import Bot, BotVersion
from lineit import formats
from lineit.engine import RULES_VERSION, RULESETS
from tournaments.models import Game, Match, MatchQuerySet, Rating, RatingEvent, Tournament

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
        if result is not None and result.tzinfo is not None:
            # Python accepts offsets up to 24 h, PostgreSQL only up to 15:59: compare in UTC.
            result = result.astimezone(UTC)
        return result


class DateTimeFilter(filters.IsoDateTimeFilter):
    field_class = BoundedDateTimeField


class FilterSet(filters.FilterSet):
    """django-filter's FilterSet, whose form class is made once per FilterSet rather than on
    every request (it depends only on the declared filters, none of which reads the request)."""

    _form_class: ClassVar[type[forms.Form] | None] = None
    _of_names: ClassVar[dict[tuple[str, ...], type[FilterSet]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._form_class = None
        cls._of_names = {}

    def get_form_class(self) -> type[forms.Form]:
        cls = type(self)
        if cls._form_class is None:
            cls._form_class = super().get_form_class()
        return cls._form_class

    @classmethod
    def of_names(cls, data: QueryDict) -> type[FilterSet]:
        """This FilterSet with only the filters ``data`` names, as a subclass that leaves the
        others out (django-filter's way: a filter set to None), made once for each such set."""
        names = tuple(name for name in cls.base_filters if name in data)
        found = cls._of_names.get(names)
        if found is None:
            left_out = {name: None for name in cls.base_filters if name not in names}
            meta = type("Meta", (), {"model": cls._meta.model, "fields": []})  # no filters made from fields
            found = type(cls.__name__, (cls,), {**left_out, "Meta": meta, "__module__": cls.__module__})
            cls._of_names[names] = found
        return found


class FilterBackend(DjangoFilterBackend):
    """django-filter's backend, filtering with a FilterSet of the filters a request names.

    django-filter deep-copies every filter of a FilterSet and builds its form on every request:
    for the match list's thirteen filters, a fifth of the request's CPU. A filter that is not in
    the query string filters nothing, so leaving it out changes no result and no error message
    (every filter here reads one parameter of its own name). The browsable API's filter form and
    the schema see every filter."""

    def get_filterset(self, request: Request, queryset: QuerySet[Any], view: Any) -> FilterSet | None:
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is None:
            return None
        kwargs = self.get_filterset_kwargs(request, queryset, view)
        if getattr(getattr(request, "accepted_renderer", None), "format", "json") != "api":
            filterset_class = filterset_class.of_names(kwargs["data"])
        return filterset_class(**kwargs)


class BotFilter(FilterSet):
    name = filters.CharFilter(field_name="name", lookup_expr="iexact", max_length=40)
    search = filters.CharFilter(field_name="name", lookup_expr="icontains", max_length=40)
    owner = filters.CharFilter(field_name="owner__username", max_length=150)
    is_builtin = BooleanFilter()

    class Meta:
        model = Bot
        fields = ["name", "search", "owner", "is_builtin"]


class VersionFilter(FilterSet):
    bot = IdFilter(field_name="bot_id")
    status = filters.ChoiceFilter(choices=BotVersion.Status.choices)
    sha256 = filters.CharFilter(max_length=64)

    class Meta:
        model = BotVersion
        fields = ["bot", "status", "sha256"]


class MatchFilter(FilterSet):
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

    def filter_bot(self, queryset: MatchQuerySet, name: str, value: int) -> MatchQuerySet:
        return queryset.played_by_bot(value)

    def filter_version(self, queryset: MatchQuerySet, name: str, value: int) -> MatchQuerySet:
        return queryset.played_by_version(value)


class GameFilter(FilterSet):
    match = IdFilter(field_name="match_id")

    class Meta:
        model = Game
        fields = ["match"]


class LeaderboardFilter(FilterSet):
    ruleset = filters.ChoiceFilter(choices=RULESET_CHOICES, empty_label=None)
    rules_version = filters.CharFilter(max_length=20)
    bot = IdFilter(field_name="version__bot_id")
    status = filters.ChoiceFilter(field_name="version__status", choices=BotVersion.Status.choices)
    provisional = BooleanFilter(method="filter_provisional")
    order = filters.ChoiceFilter(
        choices=[("elo", "elo"), ("conservative", "conservative")],
        method="filter_order",
        help_text="elo (default): by the live Elo; conservative: by the low end of the whole-history "
        "fit's 95% interval (versions without a fit last).",
    )

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

    def filter_order(self, queryset: QuerySet[Rating], name: str, value: str) -> QuerySet[Rating]:
        from tournaments.selectors.ratings import CONSERVATIVE_ORDER

        return queryset.order_by(*CONSERVATIVE_ORDER) if value == "conservative" else queryset

    def filter_provisional(self, queryset: QuerySet[Rating], name: str, value: bool | None) -> QuerySet[Rating]:
        from lineit.stats.elo import PROVISIONAL_GAMES

        return queryset.filter(games__lt=PROVISIONAL_GAMES) if value else queryset.filter(games__gte=PROVISIONAL_GAMES)


class RatingHistoryFilter(FilterSet):
    ruleset = filters.ChoiceFilter(choices=RULESET_CHOICES)
    rules_version = filters.CharFilter(max_length=20)

    class Meta:
        model = RatingEvent
        fields = ["ruleset", "rules_version"]


class TournamentFilter(FilterSet):
    status = filters.ChoiceFilter(choices=Tournament.Status.choices)
    format = filters.ChoiceFilter(choices=formats.FORMAT_CHOICES)  # the registry's, when the filter set is made
    ruleset = filters.ChoiceFilter(choices=RULESET_CHOICES)
    ranked = BooleanFilter()

    class Meta:
        model = Tournament
        fields = ["status", "format", "ruleset", "ranked"]
