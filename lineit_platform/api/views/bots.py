"""Bots and versions: browse them, create a bot, upload a version, read its validation report,
download its source and retire it (owner only), its rating history and its head-to-head record,
their failure health, and put a version taken off the ladder back on it (owner only)."""

from __future__ import annotations

import io
import logging
from typing import Any

from django.conf import settings
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from bots.code_cache import BotCodeUnavailable, version_code
from bots.models import Bot, BotVersion
from bots.services import bot_create, bot_version_ladder_restore, bot_version_retire, bot_version_upload
from bots.storage import bot_code_storage
from bots.uploads import UploadRejected
from lineit_platform.errors import NotFound, Unavailable
from tournaments.models import RatingEvent
from tournaments.selectors.matches import head_to_head
from tournaments.selectors.versions import failure_health

from ..filters import BotFilter, RatingHistoryFilter, VersionFilter
from ..pagination import OldestFirstCursorPagination
from ..permissions import OwnerOrStaff
from ..serializers import (
    BotCreateSerializer,
    BotSerializer,
    FailureHealthSerializer,
    HeadToHeadSerializer,
    RatingEventSerializer,
    VersionSerializer,
    VersionUploadSerializer,
)
from ..throttling import WriteThrottle

ID_PATTERN = r"[0-9]+"

logger = logging.getLogger(__name__)


def versions_queryset() -> QuerySet[BotVersion]:
    return BotVersion.objects.select_related("bot", "uploaded_by").order_by("-id")


class BotViewSet(viewsets.ReadOnlyModelViewSet):
    """Bots. Anyone reads them; a signed-in user creates one and owns it."""

    serializer_class = BotSerializer
    filterset_class = BotFilter
    lookup_value_regex = ID_PATTERN
    throttle_classes = [WriteThrottle]
    extra_error_codes = {"POST": ["409"]}

    @property
    def throttle_scope(self) -> str | None:
        return {"create": "bots", "versions": "uploads"}.get(self.action or "")

    def get_queryset(self) -> QuerySet[Bot]:
        # Correlated subqueries, not a join and GROUP BY: computed for the page's rows only, and
        # the page count (which drops unused annotations) is a plain count of the bots.
        versions = BotVersion.objects.filter(bot=OuterRef("pk")).order_by()
        newest = versions.order_by("-number").values("pk")[:1]
        count = versions.values("bot").annotate(n=Count("pk")).values("n")
        return (
            Bot.objects.select_related("owner")
            .annotate(version_count=Coalesce(Subquery(count), 0), latest_version=Subquery(newest))
            .order_by("name")
        )

    @extend_schema(request=BotCreateSerializer, responses={201: BotSerializer})
    def create(self, request: Request) -> Response:
        given = BotCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        bot = bot_create(owner=request.user, **given.validated_data)
        return Response(BotSerializer(self.get_queryset().get(pk=bot.pk)).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        methods=["GET"], responses=VersionSerializer(many=True), operation_id="bots_versions_list", filters=False
    )
    @extend_schema(
        methods=["POST"],
        request={"multipart/form-data": VersionUploadSerializer},
        responses={201: VersionSerializer},
        operation_id="bots_versions_upload",
        description="Upload a new version (owner or staff). It starts `validating`; poll the version "
        "until its status is `active` or `rejected`.",
    )
    @action(detail=True, methods=["get", "post"], url_path="versions", url_name="versions")
    def versions(self, request: Request, pk: str) -> Response:
        bot = self.get_object()
        if request.method == "POST":
            return self._upload(request, bot)
        page = self.paginate_queryset(versions_queryset().filter(bot=bot))
        return self.get_paginated_response(
            VersionSerializer(page, many=True, context=self.get_serializer_context()).data
        )

    @extend_schema(
        responses=HeadToHeadSerializer(many=True),
        operation_id="bots_head_to_head",
        filters=False,
        description="Every bot this one met at a table in a finished match (ranked or not), the most "
        "games first: games, wins, win rate with its interval, mean score difference.",
    )
    @action(detail=True, methods=["get"], url_path="head-to-head", url_name="head-to-head")
    def head_to_head(self, request: Request, pk: str) -> Response:
        page = self.paginate_queryset(head_to_head(self.get_object()))
        return self.get_paginated_response(HeadToHeadSerializer(page, many=True).data)

    @extend_schema(
        responses=FailureHealthSerializer,
        operation_id="bots_failure_health",
        filters=False,
        description="The failures of every version of the bot in the matches finished in the last "
        "FAILURE_HEALTH_DAYS days (30), by kind, with the newest failing games. Kinds, games and "
        "decisions only: the messages are the owner's, on the match.",
    )
    @action(detail=True, methods=["get"], url_path="failure-health", url_name="failure-health")
    def failure_health(self, request: Request, pk: str) -> Response:
        bot = self.get_object()
        health = failure_health(bot.versions.values_list("pk", flat=True))
        return Response(FailureHealthSerializer(health.to_dict()).data)

    def _upload(self, request: Request, bot: Bot) -> Response:
        self.check_object_permissions_with(OwnerOrStaff(), request, bot)
        given = VersionUploadSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        upload = given.validated_data["file"]
        if upload.size > settings.BOT_UPLOAD_MAX_BYTES:  # refuse before reading it into memory
            raise UploadRejected(f"the file is {upload.size} bytes; the limit is {settings.BOT_UPLOAD_MAX_BYTES}")
        version = bot_version_upload(bot=bot, uploaded_by=request.user, filename=upload.name, content=upload.read())
        version = versions_queryset().get(pk=version.pk)
        return Response(
            VersionSerializer(version, context=self.get_serializer_context()).data, status=status.HTTP_201_CREATED
        )

    def check_object_permissions_with(self, permission: Any, request: Request, obj: Any) -> None:
        if not (permission.has_permission(request, self) and permission.has_object_permission(request, self, obj)):
            self.permission_denied(request, message=permission.message)


def _stored(name: str) -> bool:
    """Whether the bot storage holds ``name`` (True when it cannot say: an outage is no 404)."""
    try:
        return bool(bot_code_storage().exists(name))
    except Exception:  # an object store that refuses or does not answer (botocore's errors)
        return True


class VersionViewSet(viewsets.ReadOnlyModelViewSet):
    """Bot versions with their validation report."""

    serializer_class = VersionSerializer
    filterset_class = VersionFilter
    lookup_value_regex = ID_PATTERN
    queryset = versions_queryset()

    @property
    def extra_error_codes(self) -> dict[str, list[str]]:
        return {"POST": ["409"]} if self.action == "ladder_restore" else {}

    def get_permissions(self) -> list[Any]:
        if self.action in ("source", "retire", "ladder_restore"):
            return [OwnerOrStaff()]
        return super().get_permissions()

    @extend_schema(
        responses={(200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY, "The uploaded file.")},
        operation_id="versions_source",
    )
    @action(detail=True, methods=["get"])
    def source(self, request: Request, pk: str) -> FileResponse:
        version = self.get_object()
        try:
            # Checked against the version's sha256: never bytes other than the upload's.
            code = version_code(version)
        except BotCodeUnavailable as error:
            logger.warning("the code of %s could not be served: %s", version.label, error)
            if not _stored(version.path):
                raise NotFound(f"the code of {version.label} is not in the bot storage") from None
            raise Unavailable(
                f"the code of {version.label} cannot be read intact from the bot storage now; "
                "the operators are told (try again later)"
            ) from None
        return FileResponse(
            io.BytesIO(code),
            as_attachment=True,
            filename=f"{version.bot.name}-v{version.number}.{version.kind}",
            content_type="application/octet-stream",
        )

    @extend_schema(
        request=None,
        responses={200: VersionSerializer},
        operation_id="versions_retire",
        description="Take the version out of play (owner or staff), whatever its state: an active one "
        "keeps its matches and ratings but plays no more ladder matches; one still `validating` is never "
        "validated. A `rejected` or `retired` version is answered as it is. The same file may then be "
        "uploaded again as a new version.",
    )
    @action(detail=True, methods=["post"])
    def retire(self, request: Request, pk: str) -> Response:
        version = bot_version_retire(version=self.get_object(), retired_by=request.user)
        return Response(
            VersionSerializer(versions_queryset().get(pk=version.pk), context=self.get_serializer_context()).data
        )

    @extend_schema(
        responses=FailureHealthSerializer,
        operation_id="versions_failure_health",
        filters=False,
        description="The version's failures in the matches finished in the last FAILURE_HEALTH_DAYS "
        "days (30), by kind, with the newest failing games.",
    )
    @action(detail=True, methods=["get"], url_path="failure-health", url_name="failure-health")
    def failure_health(self, request: Request, pk: str) -> Response:
        return Response(FailureHealthSerializer(failure_health([self.get_object().pk]).to_dict()).data)

    @extend_schema(
        request=None,
        responses={200: VersionSerializer},
        operation_id="versions_ladder_restore",
        description="Put a version taken off the ladder for failing back on it (owner or staff); its "
        "run of failing matches starts again from 0. One on the ladder is answered as it is; one no "
        "longer active gets 409.",
    )
    @action(detail=True, methods=["post"], url_path="ladder-restore", url_name="ladder-restore")
    def ladder_restore(self, request: Request, pk: str) -> Response:
        version = bot_version_ladder_restore(version=self.get_object(), restored_by=request.user)
        return Response(
            VersionSerializer(versions_queryset().get(pk=version.pk), context=self.get_serializer_context()).data
        )


class RatingHistoryView(generics.ListAPIView):
    """Every change of one version's rating, oldest first (the canonical order of the ratings)."""

    serializer_class = RatingEventSerializer
    filterset_class = RatingHistoryFilter
    pagination_class = OldestFirstCursorPagination

    def get_queryset(self) -> QuerySet[RatingEvent]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return RatingEvent.objects.none()
        version = get_object_or_404(BotVersion.objects.only("pk"), pk=self.kwargs["pk"])
        return RatingEvent.objects.filter(version=version)

    @extend_schema(operation_id="versions_rating_history")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
