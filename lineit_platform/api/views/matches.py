"""Matches and games: browse and filter them, request an unranked match, download replays and
verify them with the engine."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.http import Http404, JsonResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from bots.models import BotVersion
from lineit_platform.engine import verify_replay
from lineit_platform.errors import NotFound
from tournaments.models import Game, GameFailure, Match, MatchEntrant
from tournaments.services.match_requests import match_request

from .. import caching
from ..filters import GameFilter, MatchFilter
from ..pagination import NewestFirstCursorPagination, OldestFirstCursorPagination
from ..permissions import may_manage
from ..serializers import (
    EntrantSerializer,
    FailureSerializer,
    GameSerializer,
    MatchDetailSerializer,
    MatchRequestSerializer,
    MatchSerializer,
    VerificationSerializer,
)
from ..throttling import WriteThrottle
from .bots import ID_PATTERN


def attach_entrants(matches: Iterable[Match | dict[str, Any]]) -> None:
    """Give each match (an instance, or a row of the list) ``entrant_rows``: its entrants with their
    version and bot, in one query of plain rows (lists show thousands of entrants; model instances
    would cost far more)."""
    by_id: dict[int, list[dict[str, Any]]] = {}
    for match in matches:
        rows: list[dict[str, Any]] = []
        if isinstance(match, dict):
            match["entrant_rows"] = by_id[match["id"]] = rows
        else:
            match.entrant_rows = by_id[match.pk] = rows
    entrants = (
        MatchEntrant.objects.filter(match_id__in=by_id).order_by("match_id", "index").values(*EntrantSerializer.COLUMNS)
    )
    for row in entrants:
        by_id[row["match_id"]].append(row)


def _failures() -> Prefetch[GameFailure]:
    # Of the version and the bot, only the owner (who may read the stderr tail).
    shown = ("game_id", "seat", "version_id", "kind", "message", "decision", "stderr_tail", "version__bot__owner_id")
    return Prefetch("failures", GameFailure.objects.select_related("version__bot").only(*shown).order_by("seat"))


def games_queryset() -> QuerySet[Game]:
    """Games without their replay blobs (only the replay endpoint reads those)."""
    return Game.objects.defer("replay").prefetch_related(_failures())


class MatchViewSet(viewsets.ReadOnlyModelViewSet):
    """Matches, newest first. Anyone reads them; a signed-in user requests unranked ones."""

    filterset_class = MatchFilter
    pagination_class = NewestFirstCursorPagination
    lookup_value_regex = ID_PATTERN
    throttle_classes = [WriteThrottle]
    throttle_scope = "match_requests"

    def get_queryset(self) -> QuerySet[Match]:
        shown = [name for name in MatchDetailSerializer.COLUMNS if "__" not in name]
        queryset = Match.objects.select_related("requested_by").only(*shown, "requested_by__username")
        if self.action in ("retrieve", "create"):
            queryset = queryset.prefetch_related(Prefetch("game_logs", games_queryset().order_by("index")))
        return queryset

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        rows = self.filter_queryset(Match.objects.values(*MatchSerializer.COLUMNS))
        page = self.paginate_queryset(rows)
        assert page is not None  # every list is paginated
        attach_entrants(page)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = caching.match_detail_key(request, kwargs["pk"])
        cached = caching.get(key)
        if cached is not None and not _sees_private(request.user, cached["owners"]):
            return Response(cached["data"])
        match = _detail_row(kwargs["pk"])
        data = self.get_serializer(match).data
        if match["status"] in caching.FINAL_STATUSES:
            owners = {
                failure["version__bot__owner_id"] for game in match["game_rows"] for failure in game["failure_rows"]
            }
            if not _sees_private(request.user, owners):  # what every reader sees, and final
                caching.put(key, {"data": data, "owners": owners})
        return Response(data)

    def get_serializer_class(self) -> type[serializers.Serializer]:
        return MatchDetailSerializer if self.action in ("retrieve", "create") else MatchSerializer

    @extend_schema(
        request=MatchRequestSerializer,
        responses={201: MatchDetailSerializer},
        description="Request an unranked match of your version against chosen opponents, within your "
        "quota (pending matches, games per 24 hours). It starts `queued`; poll it until `finished`.",
    )
    def create(self, request: Request) -> Response:
        given = MatchRequestSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        versions = _versions_in_order([data["version"], *data["opponents"]])
        if not may_manage(request.user, versions[0].bot.owner_id):
            self.permission_denied(request, message="`version` must be a version of one of your bots.")
        match = match_request(
            requested_by=request.user,
            versions=versions,
            games=data["games"],
            ruleset=data["ruleset"],
            seed=data["seed"],
            duplicate_deals=data["duplicate_deals"],
            rotate_seats=data["rotate_seats"],
        )
        match = self.get_queryset().get(pk=match.pk)
        attach_entrants([match])
        return Response(self.get_serializer(match).data, status=status.HTTP_201_CREATED)


def _detail_row(pk: str) -> dict[str, Any]:
    """A match with its entrants, games and failures as plain rows: four small queries, no model
    instances (they cost more than the queries)."""
    match = Match.objects.filter(pk=pk).values(*MatchDetailSerializer.COLUMNS).first()
    if match is None:
        raise Http404("No Match matches the given query.")
    attach_entrants([match])
    games = list(Game.objects.filter(match_id=pk).order_by("index").values(*GameSerializer.COLUMNS))
    by_game: dict[int, list[dict[str, Any]]] = {game["id"]: [] for game in games}
    for failure in GameFailure.objects.filter(match_id=pk).order_by("seat").values(*FailureSerializer.COLUMNS):
        by_game[failure["game_id"]].append(failure)
    match["game_rows"] = [game | {"failure_rows": by_game[game["id"]]} for game in games]
    return match


def _sees_private(user: Any, owners: Iterable[int]) -> bool:
    """Whether this viewer sees a failure's stderr tail in a match with these failing owners."""
    return any(may_manage(user, owner) for owner in owners)


def _versions_in_order(ids: list[int]) -> list[BotVersion]:
    found = BotVersion.objects.select_related("bot").in_bulk(set(ids))
    missing = sorted(set(ids) - set(found))
    if missing:
        raise NotFound(f"no bot version {', '.join(map(str, missing))}")
    return [found[pk] for pk in ids]


class GameViewSet(viewsets.ReadOnlyModelViewSet):
    """Games of finished matches: scores, ranks, failures; the replay and its verification."""

    serializer_class = GameSerializer
    filterset_class = GameFilter
    pagination_class = OldestFirstCursorPagination
    lookup_value_regex = ID_PATTERN
    queryset = games_queryset()

    @extend_schema(
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, "The replay (docs/replay-format.md).")},
        operation_id="games_replay",
        filters=False,
    )
    @action(detail=True, methods=["get"])
    def replay(self, request: Request, pk: str) -> JsonResponse:
        game = self._game_with_replay(pk)
        response = JsonResponse(game.replay_document())
        response["Content-Disposition"] = f'attachment; filename="match-{game.match_id}-game-{game.index}.json"'
        return response

    @extend_schema(responses=VerificationSerializer, operation_id="games_verification", filters=False)
    @action(detail=True, methods=["get"])
    def verification(self, request: Request, pk: str) -> Response:
        """Replay the game with the engine: every action legal, recorded scores and ranks right."""
        game = self._game_with_replay(pk)
        result = verify_replay(game.replay_document())
        return Response(
            {
                "game": game.pk,
                "ok": result.ok,
                "message": result.message,
                "scores": result.scores,
                "ranks": result.ranks,
            }
        )

    def _game_with_replay(self, pk: Any) -> Game:
        game = Game.objects.filter(pk=pk).only("pk", "match_id", "index", "replay").first()
        if game is None:
            raise NotFound(f"no game {pk}")
        return game
