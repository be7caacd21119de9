"""A version's SPRT against the previous version: read it, start one, cancel it (owner or staff);
a bot's setting, whether its new versions are tested automatically (owner or staff)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.models import Bot, BotVersion
from lineit_platform.errors import NotFound
from tournaments.selectors.sprt import bot_tests_new_versions, sprt_summary, version_sprt
from tournaments.services.sprt import bot_sprt_setting_set, sprt_cancel, sprt_start

from ..serializers.sprt import BotSprtSettingSerializer, SprtStartSerializer, SprtTestSerializer


def _version(pk: Any) -> BotVersion:
    return get_object_or_404(BotVersion.objects.select_related("bot"), pk=pk)


class VersionSprtView(APIView):
    """GET: the version's newest test against an earlier version. POST: start one. DELETE: cancel
    the running one. Games are played new against old on the interactive queue, unranked, in
    batches of deal pairs, until lineit sprt's sequential test decides (docs/platform.md)."""

    extra_error_codes = {"POST": ["409"], "DELETE": ["409"]}

    @extend_schema(responses=SprtTestSerializer, operation_id="versions_sprt")
    def get(self, request: Request, pk: int) -> Response:
        test = version_sprt(_version(pk).pk)
        if test is None:
            raise NotFound(f"version {pk} has no SPRT")
        return Response(SprtTestSerializer(sprt_summary(test)).data)

    @extend_schema(
        request=SprtStartSerializer,
        responses={201: SprtTestSerializer},
        operation_id="versions_sprt_start",
        description="Start a test of this version (active) against an earlier active version of its bot "
        "(owner or staff); 409 while a test of the bot runs. Unset parameters are lineit sprt's defaults "
        "and the SPRT_* settings.",
    )
    def post(self, request: Request, pk: int) -> Response:
        version = _version(pk)
        given = SprtStartSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        options = dict(given.validated_data)
        old = options.pop("old_version", None)
        test = sprt_start(
            new_version=version,
            old_version=None if old is None else _version(old),
            requested_by=request.user,
            **options,
        )
        return Response(SprtTestSerializer(sprt_summary(test)).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=None,
        responses=SprtTestSerializer,
        operation_id="versions_sprt_cancel",
        description="Cancel the version's running test (owner or staff); its games so far stay. 409 when "
        "its newest test is not running.",
    )
    def delete(self, request: Request, pk: int) -> Response:
        test = version_sprt(_version(pk).pk)
        if test is None:
            raise NotFound(f"version {pk} has no SPRT")
        test = sprt_cancel(test=test, reason=f"cancelled by {request.user.get_username()}", cancelled_by=request.user)
        return Response(SprtTestSerializer(sprt_summary(test)).data)


class BotSprtSettingView(APIView):
    """Whether the bot's new versions are tested against the previous one when they become active."""

    @extend_schema(responses=BotSprtSettingSerializer, operation_id="bots_sprt_setting")
    def get(self, request: Request, pk: int) -> Response:
        bot = get_object_or_404(Bot, pk=pk)
        return Response({"test_new_versions": bot_tests_new_versions(bot.pk)})

    @extend_schema(
        request=BotSprtSettingSerializer,
        responses=BotSprtSettingSerializer,
        operation_id="bots_sprt_setting_set",
        description="Turn the automatic test of new versions on or off (owner or staff).",
    )
    def put(self, request: Request, pk: int) -> Response:
        bot = get_object_or_404(Bot, pk=pk)
        given = BotSprtSettingSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        setting = bot_sprt_setting_set(
            bot=bot, test_new_versions=given.validated_data["test_new_versions"], changed_by=request.user
        )
        return Response({"test_new_versions": setting.test_new_versions})
