"""Matches and games: browse and filter them, request an unranked match, download replays (signed
by the site: lineit_platform/replay_signing.py) and verify them with the engine."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from django.db.models import QuerySet
from django.http import Http404, JsonResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.models import BotVersion
from lineit.engine import verify_replay
from lineit_platform.errors import NotFound
from lineit_platform.replay_signing import public_key_answer, signed_replay
from tournaments.models import Game, Match
from tournaments.selectors.matches import game_list, match_detail, match_list
from tournaments.services.match_requests import match_request

from .. import caching
from ..filters import MAX_ID, GameFilter, MatchFilter
from ..pagination import NewestFirstCursorPagination, OldestFirstCursorPagination
from ..permissions import may_manage
from ..renderers import RENDERERS
from ..serializers import (
    GameSerializer,
    MatchDetailSerializer,
    MatchRequestSerializer,
    MatchSerializer,
    ReplayPublicKeySerializer,
    VerificationSerializer,
)
from ..throttling import WriteThrottle
from .bots import ID_PATTERN


class MatchViewSet(viewsets.ReadOnlyModelViewSet):
    """Matches, newest first. Anyone reads them; a signed-in user requests unranked ones."""

    filterset_class = MatchFilter
    pagination_class = NewestFirstCursorPagination
    renderer_classes = RENDERERS
    lookup_value_regex = ID_PATTERN
    throttle_classes = [WriteThrottle]
    throttle_scope = "match_requests"

    def get_queryset(self) -> QuerySet[Match]:
        return match_list()

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = caching.match_detail_key(request, kwargs["pk"])
        cached = caching.get(key)
        if cached is not None and not _sees_private(request.user, cached["owners"]):
            return Response(cached["data"])
        data, owners = self._detail(request, int(kwargs["pk"]))
        if data["status"] in caching.FINAL_STATUSES and not _sees_private(request.user, owners):
            caching.put(key, {"data": data, "owners": owners})  # what every reader sees, and final
        return Response(data)

    def _detail(self, request: Request, pk: int) -> tuple[dict[str, Any], frozenset[int]]:
        """The match as MatchDetailSerializer writes it for this viewer, and the owners of the
        versions that failed in it (who, with staff, see the messages and stderr tails)."""
        detail = match_detail(pk, reads_text_of=partial(may_manage, request.user)) if 0 < pk <= MAX_ID else None
        if detail is None:  # no such id (nor one the database could hold)
            raise Http404("No Match matches the given query.")
        serializer = MatchDetailSerializer(context=self.get_serializer_context())
        return serializer.write(detail.match), detail.failing_owners

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
        data, _ = self._detail(request, match.pk)
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

    def get_queryset(self) -> QuerySet[Game]:
        return game_list()

    @extend_schema(
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                "The replay (docs/replay-format.md), in the current format and signed by the site: its `signature` "
                "holds the Ed25519 signature of the key at /api/replays/public-key/ over every other field.",
            )
        },
        operation_id="games_replay",
        filters=False,
    )
    @action(detail=True, methods=["get"])
    def replay(self, request: Request, pk: str) -> JsonResponse:
        game = self._game_with_replay(pk)
        response = JsonResponse(signed_replay(game.replay_document()))
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


class ReplayPublicKeyView(APIView):
    """The public key of the site's replay signatures; the same key as PEM is the file
    /.well-known/lineit-replay-key.pem. Check a downloaded replay with
    `lineit verify FILE --key KEYFILE` (either file)."""

    renderer_classes = RENDERERS

    @extend_schema(responses=ReplayPublicKeySerializer, operation_id="replays_public_key")
    def get(self, request: Request) -> Response:
        return Response(public_key_answer())
