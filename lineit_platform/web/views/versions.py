"""A version's owner acts on it from its page: retire it (bots.services.bot_version_retire, the
service the API's POST /api/versions/{id}/retire/ calls too), put it back on the ladder
(bot_version_ladder_restore, as POST /api/versions/{id}/ladder-restore/)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from bots.models import BotVersion
from bots.services import bot_version_ladder_restore, bot_version_retire
from lineit_platform.errors import ApplicationError, Forbidden


@login_required
@require_POST
def version_retire(request: HttpRequest, name: str, number: int) -> HttpResponse:
    version = get_object_or_404(BotVersion.objects.select_related("bot"), bot__name=name, number=number)
    before = version.status
    try:
        version = bot_version_retire(version=version, retired_by=request.user)
    except Forbidden as error:
        raise PermissionDenied(error.message) from None
    if version.status == BotVersion.Status.RETIRED and before != BotVersion.Status.RETIRED:
        messages.success(request, f"{version.label} is retired: it plays no more ladder matches.")
    else:
        messages.info(request, f"{version.label} is {version.status}: it plays no matches already.")
    return redirect("version-detail", name=version.bot.name, number=version.number)


@login_required
@require_POST
def version_ladder_restore(request: HttpRequest, name: str, number: int) -> HttpResponse:
    version = get_object_or_404(BotVersion.objects.select_related("bot"), bot__name=name, number=number)
    was_off = version.ladder_removed_at is not None
    try:
        version = bot_version_ladder_restore(version=version, restored_by=request.user)
    except Forbidden as error:
        raise PermissionDenied(error.message) from None
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        if was_off:
            messages.success(request, f"{version.label} is back on the ladder; its run of failing matches is reset.")
        else:
            messages.info(request, f"{version.label} is on the ladder already.")
    return redirect("version-detail", name=version.bot.name, number=version.number)
