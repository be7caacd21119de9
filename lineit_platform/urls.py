"""URLs: the admin, the REST API under /api/, replay documents, and the pages."""

from django.contrib import admin
from django.urls import include, path

from lineit_platform.health import health
from lineit_platform.metrics import metrics

# A request Django refused to read (too many fields, too large): the API's error shape under
# /api/, a plain page elsewhere.
handler400 = "lineit_platform.request_limits.bad_request"

urlpatterns = [
    path("health/", health, name="health"),
    path("metrics", metrics, name="metrics"),
    path("admin/", admin.site.urls),
    # Recurring tournaments first: the API's own list ends with a catch-all 404.
    path("api/", include("lineit_platform.api.tournaments")),
    path("api/", include("lineit_platform.api.urls")),
    path("", include("tournaments.urls")),
    path("", include("lineit_platform.web.tournaments")),
    path("", include("lineit_platform.web.docs")),
    path("", include("lineit_platform.web.urls")),
]
