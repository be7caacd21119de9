"""The REST API under /api/. The schema is at /api/schema/ (OpenAPI 3), its documentation pages at
/api/docs/ (Swagger UI) and /api/redoc/, both served from this site (drf-spectacular-sidecar) under its
Content-Security-Policy (docs.py)."""

from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from .docs import RedocView, SpectacularSwaggerSplitView
from .errors import not_found
from .views.auth import MeView, TokenRotateView, TokenView
from .views.bots import BotViewSet, RatingHistoryView, VersionViewSet
from .views.matches import GameViewSet, MatchViewSet, ReplayPublicKeyView
from .views.notifications import MyNotificationsView
from .views.ratings import LeaderboardView
from .views.sprt import BotSprtSettingView, VersionSprtView
from .views.tournaments import TournamentViewSet

router = DefaultRouter()
router.include_root_view = True
router.register("bots", BotViewSet, basename="api-bot")
router.register("versions", VersionViewSet, basename="api-version")
router.register("matches", MatchViewSet, basename="api-match")
router.register("games", GameViewSet, basename="api-game")
router.register("tournaments", TournamentViewSet, basename="api-tournament")

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/token/", TokenView.as_view(), name="api-token"),
    path("auth/token/rotate/", TokenRotateView.as_view(), name="api-token-rotate"),
    path("auth/", include("rest_framework.urls")),  # session sign-in for the browsable API
    path("me/", MeView.as_view(), name="api-me"),
    path("me/notifications/", MyNotificationsView.as_view(), name="api-me-notifications"),
    path("versions/<int:pk>/rating-history/", RatingHistoryView.as_view(), name="api-version-rating-history"),
    path("versions/<int:pk>/sprt/", VersionSprtView.as_view(), name="api-version-sprt"),
    path("bots/<int:pk>/sprt-setting/", BotSprtSettingView.as_view(), name="api-bot-sprt-setting"),
    path("leaderboard/", LeaderboardView.as_view(), name="api-leaderboard"),
    path("replays/public-key/", ReplayPublicKeyView.as_view(), name="api-replay-public-key"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", RedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("", include(router.urls)),
    re_path(r"^[\s\S]*$", not_found, name="api-not-found"),  # any path, even one with a newline
]
