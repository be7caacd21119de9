"""Recurring tournaments (staff only): templates that make a tournament every interval, for example
a weekly Swiss of every active version. Tournaments themselves are in views/tournaments.py.

``urlpatterns`` (relative to /api/) is included by the project, before the API's catch-all.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.urls import URLPattern, path
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response

from lineit import formats
from lineit.engine import RULESETS, STANDARD
from tournaments.models import TOURNAMENT_SETTINGS, RecurringTournament, Tournament
from tournaments.services.tournaments.recurring import recurring_tournament_save


class RecurringTournamentSerializer(serializers.ModelSerializer):
    format = serializers.ChoiceField(choices=formats.FORMAT_CHOICES)  # the registry's, when the serializer is made
    table_size = serializers.IntegerField(min_value=2, max_value=5, default=2)
    options = serializers.DictField(
        required=False, default=dict, help_text=", ".join(option.name for option in formats.FORMAT_OPTIONS)
    )
    games_per_pairing = serializers.IntegerField(min_value=1, max_value=1000, default=8)
    ruleset = serializers.ChoiceField(choices=list(RULESETS), default=STANDARD)
    limits = serializers.DictField(required=False, default=dict, help_text="Time and memory limits of each match.")
    participation = serializers.ChoiceField(
        choices=[Tournament.Participation.ALL_ACTIVE, Tournament.Participation.OPEN],
        default=Tournament.Participation.ALL_ACTIVE,
    )
    max_entrants = serializers.IntegerField(min_value=2, max_value=100_000, required=False, allow_null=True)
    every = serializers.DurationField(help_text='The interval: "7 00:00:00" or "P7D" is a week.')
    next_run_at = serializers.DateTimeField(help_text="The next slot (UTC); then every `every`.")
    signup_window = serializers.DurationField(
        required=False, help_text="From the slot to the start: the time to sign up (open sign-up)."
    )
    tournaments = serializers.SerializerMethodField(help_text="Ids of the tournaments made, newest first.")

    class Meta:
        model = RecurringTournament
        fields = [
            "id",
            "name",
            "enabled",
            *TOURNAMENT_SETTINGS[1:],  # after the name
            "every",
            "next_run_at",
            "signup_window",
            "last_run_at",
            "created_at",
            "tournaments",
        ]
        read_only_fields = ["id", "last_run_at", "created_at", "tournaments"]

    def get_tournaments(self, recurring: RecurringTournament) -> list[int]:
        return sorted((t.pk for t in recurring.tournaments.all()), reverse=True)


def _queryset() -> QuerySet[RecurringTournament]:
    return RecurringTournament.objects.prefetch_related("tournaments").order_by("name", "id")


class RecurringTournamentListView(generics.ListCreateAPIView):
    """Staff: the recurring tournaments, and making a new one."""

    serializer_class = RecurringTournamentSerializer
    permission_classes = [IsAdminUser]

    def get_queryset(self) -> QuerySet[RecurringTournament]:
        return _queryset()

    @extend_schema(responses={201: RecurringTournamentSerializer})
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        given = self.get_serializer(data=request.data)
        given.is_valid(raise_exception=True)
        recurring = recurring_tournament_save(**given.validated_data)
        return Response(self.get_serializer(_queryset().get(pk=recurring.pk)).data, status=status.HTTP_201_CREATED)


class RecurringTournamentDetailView(generics.RetrieveUpdateDestroyAPIView):
    """Staff: read, change (PATCH or PUT; checked as a whole) or delete a recurring tournament.
    Deleting it keeps the tournaments it made."""

    serializer_class = RecurringTournamentSerializer
    permission_classes = [IsAdminUser]

    def get_queryset(self) -> QuerySet[RecurringTournament]:
        return _queryset()

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        recurring = self.get_object()
        given = self.get_serializer(recurring, data=request.data, partial=kwargs.get("partial", False))
        given.is_valid(raise_exception=True)
        recurring_tournament_save(recurring=recurring, **given.validated_data)
        return Response(self.get_serializer(_queryset().get(pk=recurring.pk)).data)


urlpatterns: list[URLPattern] = [
    path("recurring-tournaments/", RecurringTournamentListView.as_view(), name="api-recurring-tournament-list"),
    path(
        "recurring-tournaments/<int:pk>/",
        RecurringTournamentDetailView.as_view(),
        name="api-recurring-tournament-detail",
    ),
]
