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
from lineit.engine import verify_replay
from lineit_platform.errors import NotFound
from tournaments.models import Game, GameFailure, Match
from tournaments.services.match_requests import match_request

from .. import caching, match_pages, reads
from ..filters import MAX_ID, GameFilter, MatchFilter
from ..pagination import NewestFirstCursorPagination, OldestFirstCursorPagination
from ..permissions import may_manage
from ..renderers import RENDERERS
from ..serializers import (
    GameSerializer,
    MatchDetailSerializer,
    MatchRequestSerializer,
    MatchSerializer,
    VerificationSerializer,
)
from ..throttling import WriteThrottle
from .bots import ID_PATTERN


def _failures() -> Prefetch[GameFailure]:
    # Of the version and the bot, only the owner (who may read the message and the stderr tail).
    shown = ("game_id", "seat", "version_id", "kind", "message", "decision", "stderr_tail", "version__bot__owner_id")
    return Prefetch("failures", GameFailure.objects.select_related("version__bot").only(*shown).order_by("seat"))


def games_queryset() -> QuerySet[Game]:
    """Games without their replay blobs (only the replay endpoint reads those)."""
    return Game.objects.defer("replay").prefetch_related(_failures())


class MatchViewSet(viewsets.ReadOnlyModelViewSet):
    """Matches, newest first. Anyone reads them; a signed-in user requests unranked ones."""

    filterset_class = MatchFilter
    pagination_class = NewestFirstCursorPagination
    renderer_classes = RENDERERS
    lookup_value_regex = ID_PATTERN
    throttle_classes = [WriteThrottle]
    throttle_scope = "match_requests"

    def get_queryset(self) -> QuerySet[Match]:
        # The schema and the browsable API's filter form read it; list and retrieve read reads.py.
        return Match.objects.all()

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        rows = match_pages.match_rows(request)
        if rows is not None:  # one query (match_pages)
            page = self.paginate_queryset(rows)
            assert page is not None  # every list is paginated
            return self.get_paginated_response(page)
        # The general path: the FilterSet and the ORM build the filtered, paginated id query (and
        # answer bad values); the rows are read by reads.match_list.
        ids = self.paginate_queryset(self.filter_queryset(Match.objects.values("id")))
        assert ids is not None
        return self.get_paginated_response(reads.match_list([row["id"] for row in ids], request))

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = caching.match_detail_key(request, kwargs["pk"])
        cached = caching.get(key)
        if cached is not None and not _sees_private(request.user, cached["owners"]):
            return Response(cached["data"])
        pk = int(kwargs["pk"])
        if not 0 < pk <= MAX_ID:  # no such id (nor one the database could hold)
            raise Http404("No Match matches the given query.")
        data, owners = reads.match_detail(pk, request)
        if data["status"] in caching.FINAL_STATUSES and not _sees_private(request.user, owners):
            caching.put(key, {"data": data, "owners": owners})  # what every reader sees, and final
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
        data, _ = reads.match_detail(match.pk, request)
        return Response(data, status=status.HTTP_201_CREATED)


def _sees_private(user: Any, owners: Iterable[int]) -> bool:
    """Whether this viewer sees a failure's message and stderr tail in a match with these failing owners."""
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
