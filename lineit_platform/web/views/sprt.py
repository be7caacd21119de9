"""A version's SPRT on its page: the small JSON the page polls while the test runs (web/live.js),
and its owner's buttons: start a test, cancel it, turn the automatic test of new versions on or
off (the services the API's /api/versions/{id}/sprt/ and /api/bots/{id}/sprt-setting/ call)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from bots.models import Bot, BotVersion
from lineit_platform.errors import ApplicationError, Forbidden
from tournaments.selectors.sprt import sprt_summary, version_sprt
from tournaments.services.sprt import bot_sprt_setting_set, sprt_cancel, sprt_start


def _version(name: str, number: int) -> BotVersion:
    return get_object_or_404(BotVersion.objects.select_related("bot"), bot__name=name, number=number)


def _back(version: BotVersion) -> HttpResponse:
    return redirect(reverse("version-detail", args=[version.bot.name, version.number]) + "#sprt")


def version_sprt_json(request: HttpRequest, name: str, number: int) -> JsonResponse:
    """What the version page polls while its test runs: ``state`` changes with each batch folded
    in and with the verdict (the page reloads then), ``text`` says where the test stands."""
    test = version_sprt(_version(name, number).pk)
    if test is None:
        raise Http404("no SPRT")
    summary = sprt_summary(test)
    for moment in ("created_at", "finished_at"):
        summary[moment] = summary[moment] and summary[moment].isoformat()
    return JsonResponse(summary)


@login_required
@require_POST
def version_sprt_start(request: HttpRequest, name: str, number: int) -> HttpResponse:
    version = _version(name, number)
    try:
        test = sprt_start(new_version=version, requested_by=request.user)
    except Forbidden as error:
        raise PermissionDenied(error.message) from None
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"The SPRT of {version.label} against {test.old_version.label} has started.")
    return _back(version)


@login_required
@require_POST
def version_sprt_cancel(request: HttpRequest, name: str, number: int) -> HttpResponse:
    version = _version(name, number)
    test = version_sprt(version.pk)
    if test is None:
        raise Http404("no SPRT")
    try:
        sprt_cancel(test=test, reason=f"cancelled by {request.user.get_username()}", cancelled_by=request.user)
    except Forbidden as error:
        raise PermissionDenied(error.message) from None
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"The SPRT of {version.label} is cancelled.")
    return _back(version)


@login_required
@require_POST
def bot_sprt_setting(request: HttpRequest, name: str) -> HttpResponse:
    bot = get_object_or_404(Bot, name=name)
    wanted = request.POST.get("test_new_versions") == "on"
    try:
        bot_sprt_setting_set(bot=bot, test_new_versions=wanted, changed_by=request.user)
    except Forbidden as error:
        raise PermissionDenied(error.message) from None
    messages.success(
        request, f"New versions of {bot.name} {'are' if wanted else 'are no longer'} tested against the previous one."
    )
    back = request.POST.get("version", "")
    if back.isdigit() and bot.versions.filter(number=int(back)).exists():
        return redirect(reverse("version-detail", args=[bot.name, int(back)]) + "#sprt")
    return redirect("bot-detail", name=bot.name)
