"""Tournaments: browse them, their entries, rounds, standings and bracket; staff create, start and
cancel them; owners sign their bots up while sign-up is open. The formats are the tournaments
app's (lineit/formats); these views only call its services and readers."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Prefetch, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from bots.models import Bot, BotVersion
from lineit_platform.errors import Conflict, NotFound
from tournaments.models import Tournament, TournamentEntry
from tournaments.selectors.tournaments import tournament_bracket, tournament_rounds, tournament_standings
from tournaments.services.tournaments.creation import tournament_create, tournament_sign_up
from tournaments.services.tournaments.running import tournament_cancel, tournament_start

from ..filters import TournamentFilter
from ..serializers import (
    TournamentCancelSerializer,
    TournamentCreateSerializer,
    TournamentDetailSerializer,
    TournamentEntrySerializer,
    TournamentSerializer,
    TournamentSignUpSerializer,
)
from .bots import ID_PATTERN

DOCUMENT = OpenApiResponse(OpenApiTypes.OBJECT, "A document of the tournaments app (see docs/api.md).")


class TournamentViewSet(viewsets.ReadOnlyModelViewSet):
    filterset_class = TournamentFilter
    lookup_value_regex = ID_PATTERN
    extra_error_codes = {"POST": ["409"]}

    def get_queryset(self) -> QuerySet[Tournament]:
        queryset = Tournament.objects.annotate(entry_count=Count("entries")).order_by("-starts_at", "-id")
        return queryset.defer("state") if self.action == "list" else queryset

    def detail_queryset(self) -> QuerySet[Tournament]:
        entries = TournamentEntry.objects.select_related("bot", "version__bot").order_by("seed", "id")
        return self.get_queryset().prefetch_related(Prefetch("entries", entries))

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self._detail(self.get_object().pk)

    def get_serializer_class(self) -> type[serializers.Serializer]:
        return TournamentDetailSerializer if self.action == "retrieve" else TournamentSerializer

    def get_permissions(self) -> list[Any]:
        if self.action in ("create", "start", "cancel"):
            return [IsAdminUser()]
        if self.action == "entries":
            return [IsAuthenticated()]
        return super().get_permissions()

    @extend_schema(request=TournamentCreateSerializer, responses={201: TournamentDetailSerializer})
    def create(self, request: Request) -> Response:
        """Staff: a tournament of chosen versions, open sign-up or every active version."""
        given = TournamentCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = dict(given.validated_data)
        ids = data.pop("versions", [])
        found = BotVersion.objects.select_related("bot").in_bulk(ids)
        missing = sorted(set(ids) - set(found))
        if missing:
            raise NotFound(f"no bot version {', '.join(map(str, missing))}")
        tournament = tournament_create(versions=[found[pk] for pk in ids], created_by=request.user, **data)
        return self._detail(tournament.pk, status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=TournamentDetailSerializer, operation_id="tournaments_start")
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str) -> Response:
        """Staff: start now (entries are frozen and seeded, the first round is scheduled)."""
        tournament = self.get_object()
        if tournament.status not in Tournament.NOT_STARTED:
            raise Conflict(f"{tournament.name} is {tournament.status}; only a tournament not yet started can start")
        tournament_start(tournament_id=tournament.pk, force=True)
        return self._detail(tournament.pk)

    @extend_schema(request=TournamentCancelSerializer, responses=TournamentDetailSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        """Staff: stop it; its pending matches are cancelled."""
        given = TournamentCancelSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        tournament_cancel(tournament=self.get_object(), note=given.validated_data["note"])
        return self._detail(int(pk))

    @extend_schema(request=TournamentSignUpSerializer, responses={201: TournamentEntrySerializer})
    @action(detail=True, methods=["post"])
    def entries(self, request: Request, pk: str) -> Response:
        """Sign a bot up (its owner or staff) while sign-up is open: a chosen active version, or
        none for the bot's newest active version at the start."""
        given = TournamentSignUpSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        bot = Bot.objects.filter(pk=given.validated_data["bot"]).first()
        version_id = given.validated_data.get("version")
        version = BotVersion.objects.select_related("bot").filter(pk=version_id).first() if version_id else None
        if bot is None or (version_id and version is None):
            raise NotFound("no such bot or version")
        entry = tournament_sign_up(tournament=self.get_object(), bot=bot, user=request.user, version=version)
        entry = TournamentEntry.objects.select_related("bot", "version__bot").get(pk=entry.pk)
        return Response(TournamentEntrySerializer(entry).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: DOCUMENT}, operation_id="tournaments_rounds", filters=False)
    @action(detail=True, methods=["get"])
    def rounds(self, request: Request, pk: str) -> Response:
        """Every round so far: each table's entrants, its match (with game ids) and its result."""
        return Response({"tournament": int(pk), "rounds": tournament_rounds(self.get_object())})

    @extend_schema(responses={200: DOCUMENT}, operation_id="tournaments_standings", filters=False)
    @action(detail=True, methods=["get"])
    def standings(self, request: Request, pk: str) -> Response:
        """The standings after each played round; the last is the final table once finished."""
        return Response({"tournament": int(pk), "after_round": tournament_standings(self.get_object())})

    @extend_schema(responses={200: DOCUMENT}, operation_id="tournaments_bracket", filters=False)
    @action(detail=True, methods=["get"])
    def bracket(self, request: Request, pk: str) -> Response:
        """The elimination bracket with each bracket match's platform match; 404 for round robin
        and Swiss, and before the start."""
        bracket = tournament_bracket(self.get_object())
        if bracket is None:
            raise NotFound("this tournament has no bracket (not an elimination, or not started)")
        return Response(bracket)

    def _detail(self, pk: int, code: int = status.HTTP_200_OK) -> Response:
        tournament = self.detail_queryset().get(pk=pk)
        return Response(TournamentDetailSerializer(tournament, context=self.get_serializer_context()).data, status=code)
