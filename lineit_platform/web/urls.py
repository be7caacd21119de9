"""The server-rendered pages."""

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, path

from .forms import LoginForm
from .views import account, pages, versions

urlpatterns: list[URLPattern | URLResolver] = [
    path("", pages.home, name="home"),
    path("bots/<str:name>/", pages.bot_detail, name="bot-detail"),
    path("bots/<str:name>/upload/", account.bot_upload, name="bot-upload"),
    path("bots/<str:name>/v<int:number>/", pages.version_detail, name="version-detail"),
    path("bots/<str:name>/v<int:number>/status.json", pages.version_status, name="version-status"),
    path("bots/<str:name>/v<int:number>/retire/", versions.version_retire, name="version-retire"),
    path("matches/new/", account.match_request, name="match-request"),
    path("matches/<int:pk>/", pages.match_detail, name="match-detail"),
    path("games/<int:pk>/replay/", pages.replay_viewer, name="replay-viewer"),
    path("accounts/signup/", account.signup, name="signup"),
    path(
        "accounts/login/",
        account.LoginView.as_view(redirect_authenticated_user=True, authentication_form=LoginForm),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("me/bots/", account.my_bots, name="my-bots"),
    path("me/token/", account.api_token, name="api-token"),
]
