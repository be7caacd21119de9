"""A signed-in user's pages: sign up, log in, my bots, upload a version, request a test match,
API token, notification settings.

Every write goes through a service (bots.services, tournaments.services); the services refuse
what is not allowed, and their ApplicationError messages are shown as form errors. Rates and
quotas are the API's own (lineit_platform/throttles.py, tournaments.services.match_requests): a
request over one gets the API's message as a form error, with status 429 and Retry-After."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.forms import Form
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from bots.models import Bot
from bots.services import bot_create, bot_version_upload
from lineit_platform import throttles
from lineit_platform.accounts import LOOK_ALIKE, password_reset_completed, token_for, token_rotate
from lineit_platform.errors import ApplicationError
from notifications.models import Notification
from notifications.services import notification_settings_of, notification_settings_update
from tournaments.selectors.matches import recent_matches
from tournaments.services.match_requests import QuotaExceeded
from tournaments.services.match_requests import match_request as match_request_service

from .. import health, selectors
from ..forms import BotCreateForm, NotificationSettingsForm, ResetForm, SignUpForm, TestMatchForm, UploadForm

TOO_MANY_REQUESTS = 429


def _too_many(response: HttpResponse, refusal: ApplicationError) -> HttpResponse:
    response.status_code = TOO_MANY_REQUESTS
    if "retry_after" in refusal.extra:
        response["Retry-After"] = str(refusal.extra["retry_after"])
    return response


def _refused_page(
    request: HttpRequest, template: str, refusal: ApplicationError, *, form: Form, **context: object
) -> HttpResponse:
    """The page again, the refusal as the form's error, status 429."""
    form.add_error(None, refusal.message)
    return _too_many(render(request, template, {"form": form, **context}), refusal)


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset page behind the reset limits: requests per client address and per address
    typed (a 429 that names no account), mails per account (ResetForm, silent)."""

    form_class = ResetForm

    def form_valid(self, form: Form) -> HttpResponse:
        try:
            throttles.password_reset_hit(self.request, email=form.cleaned_data["email"])
        except throttles.RateLimited as refusal:
            return _refused_page(self.request, self.template_name, refusal, form=form)
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's page that sets the new password; then every session and the API token of the
    user end (accounts.password_reset_completed): whoever had the old password is out."""

    def form_valid(self, form: Form) -> HttpResponse:
        response = super().form_valid(form)
        password_reset_completed(user=form.user)
        return response


class LoginView(auth_views.LoginView):
    """Django's login page; LoginForm signs in through the throttle service."""

    def form_invalid(self, form: Form) -> HttpResponse:
        response = super().form_invalid(form)
        refusal = getattr(form, "refusal", None)
        return _too_many(response, refusal) if refusal is not None else response


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("my-bots")
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        try:
            throttles.signup_hit(request)
        except throttles.RateLimited as refusal:
            return _refused_page(request, "registration/signup.html", refusal, form=form)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
        except IntegrityError:  # the same name, or a look-alike, taken by a simultaneous sign-up
            exact = get_user_model().objects.filter(username=form.cleaned_data["username"]).exists()
            form.add_error("username", "A user with that username already exists." if exact else LOOK_ALIKE)
            return render(request, "registration/signup.html", {"form": form})
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Create your first bot below.")
        return redirect("my-bots")
    return render(request, "registration/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def my_bots(request: HttpRequest) -> HttpResponse:
    form = BotCreateForm(request.POST or None)
    if request.method == "POST":
        try:
            throttles.bot_create_hit(request)
        except throttles.RateLimited as refusal:
            return _refused_page(request, "web/my_bots.html", refusal, form=form, **_my_bots_context(request))
    if request.method == "POST" and form.is_valid():
        try:
            bot = bot_create(
                owner=request.user, name=form.cleaned_data["name"], description=form.cleaned_data["description"]
            )
        except ApplicationError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, f"Bot {bot.name} created. Upload its first version.")
            return redirect("bot-upload", name=bot.name)
    return render(request, "web/my_bots.html", {"form": form, **_my_bots_context(request)})


def _my_bots_context(request: HttpRequest) -> dict[str, object]:
    bots = list(Bot.objects.filter(owner=request.user).order_by("name"))
    versions = selectors.versions_by_owner(request.user)
    health.with_health(version for listed in versions.values() for version in listed)
    failures = health.failures_by_bot(bots)
    rows = [{"bot": bot, "versions": versions.get(bot.pk, []), "failures": failures.get(bot.pk, {})} for bot in bots]
    return {
        "rows": rows,
        "matches": recent_matches(limit=10, requested_by=request.user),
        "failure_days": settings.FAILURE_HEALTH_DAYS,
    }


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@login_required
@require_http_methods(["GET", "POST"])
def bot_upload(request: HttpRequest, name: str) -> HttpResponse:
    bot = get_object_or_404(Bot, name=name)
    if bot.owner_id != request.user.pk and not request.user.is_staff:
        raise PermissionDenied(f"{bot.name} belongs to someone else")
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        try:
            throttles.upload_hit(request)
        except throttles.RateLimited as refusal:
            if _wants_json(request):
                return _too_many(JsonResponse({"errors": [refusal.message]}), refusal)
            return _refused_page(request, "web/upload.html", refusal, form=form, bot=bot)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["code"]
        try:
            version = bot_version_upload(bot=bot, uploaded_by=request.user, filename=upload.name, content=upload.read())
        except ApplicationError as error:
            form.add_error("code", error.message)
        else:
            url = reverse("version-detail", args=[bot.name, version.number])
            if _wants_json(request):
                status_url = reverse("version-status", args=[bot.name, version.number])
                return JsonResponse({"label": version.label, "url": url, "status_url": status_url}, status=201)
            messages.info(request, f"{version.label} uploaded; its validation game is queued.")
            return redirect(url)
    if request.method == "POST" and _wants_json(request):
        return JsonResponse({"errors": [str(e) for errors in form.errors.values() for e in errors]}, status=400)
    return render(request, "web/upload.html", {"bot": bot, "form": form})


@login_required
@require_http_methods(["GET", "POST"])
def match_request(request: HttpRequest) -> HttpResponse:
    initial = {}
    if "version" in request.GET:
        initial["version"] = request.GET["version"]
    form = TestMatchForm(request.POST or None, user=request.user, initial=initial)
    if request.method == "POST":
        try:
            throttles.match_request_hit(request)
        except throttles.RateLimited as refusal:
            return _refused_page(request, "web/match_request.html", refusal, form=form)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            match = match_request_service(
                requested_by=request.user,
                versions=[data["version"], *data["opponents"]],
                games=data["games"],
                ruleset=data["ruleset"],
                duplicate_deals=data["duplicate_deals"],
            )
        except QuotaExceeded as error:
            return _refused_page(request, "web/match_request.html", error, form=form)
        except ApplicationError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, f"Match {match.pk} is queued.")
            return redirect("match-detail", pk=match.pk)
    return render(request, "web/match_request.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def api_token(request: HttpRequest) -> HttpResponse:
    """The token, made on first visit; a post rotates it, counted with the sign-in attempts of
    the address as the API's rotation is (lineit_platform/accounts.py makes both)."""
    if request.method == "POST":
        try:
            throttles.token_hit(request)
        except throttles.RateLimited as refusal:
            messages.error(request, refusal.message)
            page = render(request, "web/api_token.html", {"token": token_for(user=request.user)})
            return _too_many(page, refusal)
        token_rotate(user=request.user)
        messages.success(request, "A new token was made; the old one no longer works.")
        return redirect("api-token")
    return render(request, "web/api_token.html", {"token": token_for(user=request.user)})


@login_required
@require_http_methods(["GET", "POST"])
def my_notifications(request: HttpRequest) -> HttpResponse:
    """Your notification settings (only yours: the page names nobody) and your last 20
    notifications with how their delivery went."""
    chosen = notification_settings_of(request.user)
    initial = {
        "email": request.user.email,
        "email_events": chosen.email_events,
        "webhook_events": chosen.webhook_events,
        "webhook_url": chosen.webhook_url,
    }
    form = NotificationSettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            notification_settings_update(user=request.user, **form.cleaned_data)
        except ApplicationError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, "Your notification settings were saved.")
            return redirect("my-notifications")
    recent = Notification.objects.filter(user_id=request.user.pk).order_by("-created_at", "-id")[:20]
    return render(request, "web/notifications.html", {"form": form, "recent": recent})
