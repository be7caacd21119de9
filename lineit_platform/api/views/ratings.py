"""The leaderboard: live ratings of one ruleset (and rules version), best first."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.models import Rating

from .. import caching, leaderboard_pages, reads
from ..filters import LeaderboardFilter
from ..leaderboard_pages import LeaderboardRows
from ..renderers import RENDERERS
from ..serializers import LeaderboardEntrySerializer


class LeaderboardView(generics.ListAPIView):
    """Rated bot versions of one ruleset (default `standard`) and rules version (default the
    current one), best first, with games played and the provisional mark."""

    serializer_class = LeaderboardEntrySerializer
    filterset_class = LeaderboardFilter
    renderer_classes = RENDERERS

    def get_queryset(self) -> QuerySet[Rating]:
        return Rating.objects.order_by("-rating", "version_id")

    @extend_schema(operation_id="leaderboard")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = caching.leaderboard_key(request)  # changes with every rating
        cached = caching.get(key)
        if cached is not None:
            return Response(cached)
        rows: LeaderboardRows | _Rows | None = leaderboard_pages.leaderboard_rows(request, self.paginator)
        if rows is None:  # the general path: the FilterSet and the ORM (and their answers to bad values)
            rows = _Rows(self.filter_queryset(self.get_queryset()))
        page = self.paginate_queryset(rows)
        assert page is not None  # every list is paginated
        response = self.get_paginated_response(reads.leaderboard_rows(page, self.paginator.start_rank(), request))
        caching.put(key, response.data)
        return response


class _Rows:
    """The filtered ratings as Django's paginator reads them: counted as they are (no joins, an
    index-only count), a page read as plain rows of reads.LEADERBOARD_COLUMNS."""

    def __init__(self, ratings: QuerySet[Rating]) -> None:
        self.ratings = ratings

    def count(self) -> int:
        return self.ratings.count()

    def __getitem__(self, page: slice) -> list[tuple[Any, ...]]:
        return list(self.ratings.values_list(*reads.LEADERBOARD_COLUMNS)[page])
