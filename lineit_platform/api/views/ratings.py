"""The leaderboard: live ratings of one ruleset (and rules version), best first."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.models import Rating
from tournaments.selectors.ratings import leaderboard

from .. import caching
from ..filters import LeaderboardFilter
from ..pagination import PagePagination
from ..renderers import RENDERERS
from ..serializers import LeaderboardEntrySerializer


class LeaderboardView(generics.ListAPIView):
    """Rated bot versions of one ruleset (default `standard`) and rules version (default the
    current one), best first, with games played and the provisional mark."""

    serializer_class = LeaderboardEntrySerializer
    filterset_class = LeaderboardFilter
    pagination_class = PagePagination
    renderer_classes = RENDERERS

    def get_queryset(self) -> QuerySet[Rating]:
        return leaderboard()

    def get_serializer_context(self) -> dict[str, Any]:
        paginator: PagePagination = self.paginator
        return {**super().get_serializer_context(), "first_rank": paginator.start_rank()}

    @extend_schema(operation_id="leaderboard")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = caching.leaderboard_key(request)  # changes with every rating
        cached = caching.get(key)
        if cached is not None:
            return Response(cached)
        response = self.list(request, *args, **kwargs)
        caching.put(key, response.data)
        return response
