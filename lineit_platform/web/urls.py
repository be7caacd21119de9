"""The server-rendered pages."""

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, path, register_converter, reverse_lazy

from bots.models import BOT_NAME_PATTERN

from .forms import LoginForm
from .views import account, browse, pages, sprt, versions


class BotNameConverter:
    """Only what a bot's name can be (bots.models.BOT_NAME_PATTERN) reaches a view: anything else
    (a NUL, which PostgreSQL cannot even compare, a control character, 10,000 letters) is a 404
    before any query."""

    regex = BOT_NAME_PATTERN.removeprefix("^").removesuffix("$")

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(BotNameConverter, "botname")

urlpatterns: list[URLPattern | URLResolver] = [
    path("", pages.home, name="home"),
    path("bots/", browse.bot_list_page, name="bot-list"),
    path("matches/", browse.match_list_page, name="match-list"),
    path("leaderboard/", browse.leaderboard_page, name="leaderboard"),
    path("users/<str:username>/", browse.user_page, name="user-detail"),
    path("bots/<botname:name>/", pages.bot_detail, name="bot-detail"),
    path("bots/<botname:name>/upload/", account.bot_upload, name="bot-upload"),
    path("bots/<botname:name>/v<int:number>/", pages.version_detail, name="version-detail"),
    path("bots/<botname:name>/v<int:number>/status.json", pages.version_status, name="version-status"),
    path("bots/<botname:name>/v<int:number>/retire/", versions.version_retire, name="version-retire"),
    path("bots/<botname:name>/v<int:number>/sprt.json", sprt.version_sprt_json, name="version-sprt-json"),
    path("bots/<botname:name>/v<int:number>/sprt/start/", sprt.version_sprt_start, name="version-sprt-start"),
    path("bots/<botname:name>/v<int:number>/sprt/cancel/", sprt.version_sprt_cancel, name="version-sprt-cancel"),
    path("bots/<botname:name>/sprt-setting/", sprt.bot_sprt_setting, name="bot-sprt-setting"),
    path(
        "bots/<botname:name>/v<int:number>/ladder-restore/",
        versions.version_ladder_restore,
        name="version-ladder-restore",
    ),
    path("matches/new/", account.match_request, name="match-request"),
    path("matches/<int:pk>/", pages.match_detail, name="match-detail"),
    path("matches/<int:pk>/progress.json", pages.match_progress, name="match-progress"),
    path("matches/<int:pk>/live/<int:index>/", pages.live_replay_viewer, name="live-replay-viewer"),
    path("matches/<int:pk>/live/<int:index>.json", pages.live_replay_json, name="live-replay-json"),
    path("matches/<int:pk>/live/<int:index>/view.json", pages.live_replay_view_json, name="live-replay-view-json"),
    path("games/<int:pk>/replay/", pages.replay_viewer, name="replay-viewer"),
    path("games/<int:pk>/view.json", pages.replay_view_json, name="replay-view-json"),
    path(".well-known/lineit-replay-key.pem", pages.replay_public_key_pem, name="replay-public-key"),
    path("accounts/signup/", account.signup, name="signup"),
    path(
        "accounts/login/",
        account.LoginView.as_view(redirect_authenticated_user=True, authentication_form=LoginForm),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password-reset/",
        account.PasswordResetView.as_view(
            template_name="web/password_reset.html",
            email_template_name="web/password_reset_email.txt",
            subject_template_name="web/password_reset_subject.txt",
            success_url=reverse_lazy("password-reset-done"),
        ),
        name="password-reset",
    ),
    path(
        "accounts/password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(template_name="web/password_reset_done.html"),
        name="password-reset-done",
    ),
    path(
        "accounts/password-reset/<uidb64>/<token>/",
        account.PasswordResetConfirmView.as_view(
            template_name="web/password_reset_confirm.html", success_url=reverse_lazy("password-reset-complete")
        ),
        name="password-reset-confirm",
    ),
    path(
        "accounts/password-reset/done/",
        auth_views.PasswordResetCompleteView.as_view(template_name="web/password_reset_complete.html"),
        name="password-reset-complete",
    ),
    path("me/bots/", account.my_bots, name="my-bots"),
    path("me/token/", account.api_token, name="api-token"),
    path("me/notifications/", account.my_notifications, name="my-notifications"),
]
