"""Query filters of the list endpoints (django-filter). Every value is bounded, so no input can
reach the database as something it cannot hold: bad values are a 400, never a server error."""

from __future__ import annotations

import copy
import re
from datetime import UTC, datetime
from typing import Any, ClassVar

from django import forms
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL
from django.http import QueryDict
from django_filters import rest_framework as filters

from bots.models import Bot, BotVersion
from lineit.engine import RULES_VERSION, RULESETS
from tournaments.models import Game, Match, Rating, RatingEvent, Tournament

from .reads import fetch, where_in

MAX_ID = 2**63 - 1
PLAIN_ID = re.compile(r"[1-9][0-9]{0,17}")  # an id as IdField reads it (within 1..MAX_ID), unchanged
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
    """A FilterSet that builds only the filters a request names.

    django-filter deep-copies every filter, builds its form field and a new form class on every
    request; for the match list (thirteen filters) that was a fifth of the request's CPU. A filter
    that is not in the query string filters nothing, so leaving it out changes no result and no
    error message. Every filter here reads one parameter of its own name."""

    _form_classes: ClassVar[dict[tuple[str, ...], type[forms.Form]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._form_classes = {}

    def __init__(self, data: Any = None, queryset: Any = None, *, request: Any = None, prefix: Any = None) -> None:
        if queryset is None:
            queryset = self._meta.model._default_manager.all()
        self.is_bound = data is not None
        self.data = data or QueryDict()
        self.queryset = queryset
        self.request = request
        self.form_prefix = prefix
        names = [name for name in self.base_filters if not self._named_only() or name in self.data]
        self.filters = {name: copy.deepcopy(self.base_filters[name]) for name in names}
        for filter_ in self.filters.values():
            filter_.model = queryset.model
            filter_.parent = self

    def _named_only(self) -> bool:
        # The browsable API's filter form shows every filter, as does an unbound FilterSet.
        renderer = getattr(self.request, "accepted_renderer", None)
        return self.is_bound and getattr(renderer, "format", "json") != "api"

    def get_form_class(self) -> type[forms.Form]:
        # A form class per set of named filters, made once: the form deep-copies its fields anyway.
        key = tuple(self.filters)
        form_class = self._form_classes.get(key)
        if form_class is None:
            form_class = super().get_form_class()
            self._form_classes[key] = form_class
        return form_class


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

    # A subquery rather than a join: a version seated twice must not list its match twice. Plain
    # SQL: the ORM takes longer to build these subqueries than PostgreSQL takes to run them.
    def filter_bot(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        # The bot's version ids as a list, not a join: PostgreSQL then reads the entrants through
        # their (version, match) index instead of walking every entrant of every newer match.
        versions = [row[0] for row in fetch("SELECT id FROM bots_botversion WHERE bot_id = %s", [value])]
        if not versions:
            return queryset.none()
        condition, params = where_in(versions)
        return queryset.filter(
            pk__in=RawSQL(f"SELECT match_id FROM tournaments_matchentrant WHERE version_id {condition}", params)
        )

    def filter_version(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(
            pk__in=RawSQL("SELECT match_id FROM tournaments_matchentrant WHERE version_id = %s", [value])
        )


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
    format = filters.ChoiceFilter(choices=Tournament.Format.choices)
    ruleset = filters.ChoiceFilter(choices=RULESET_CHOICES)
    ranked = BooleanFilter()

    class Meta:
        model = Tournament
        fields = ["status", "format", "ruleset", "ranked"]
