"""The leaderboard: live ratings of one ruleset (and rules version), best first."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.models import Rating

from .. import caching
from ..filters import LeaderboardFilter
from ..serializers import LeaderboardEntrySerializer


class LeaderboardView(generics.ListAPIView):
    """Rated bot versions of one ruleset (default `standard`) and rules version (default the
    current one), best first, with games played and the provisional mark."""

    serializer_class = LeaderboardEntrySerializer
    filterset_class = LeaderboardFilter

    def get_queryset(self) -> QuerySet[Rating]:
        return (
            Rating.objects.select_related("version__bot__owner")
            .only(
                "version_id",
                "ruleset",
                "rules_version",
                "rating",
                "games",
                "updated_at",
                "version__number",
                "version__status",
                "version__bot_id",
                "version__bot__name",
                "version__bot__owner_id",
                "version__bot__owner__username",
            )
            .order_by("-rating", "version_id")
        )

    @extend_schema(operation_id="leaderboard")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = caching.leaderboard_key(request)  # changes with every rating
        cached = caching.get(key)
        if cached is not None:
            return Response(cached)
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        first = self.paginator.start_rank() if page is not None else 1
        rows = page if page is not None else []
        context = self.get_serializer_context() | {"rank_of": {row.pk: first + i for i, row in enumerate(rows)}}
        data = LeaderboardEntrySerializer(rows, many=True, context=context).data
        response = self.get_paginated_response(data)
        caching.put(key, response.data)
        return response
