"""URLs: the admin, the REST API under /api/, replay documents, and the pages."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("lineit_platform.api.urls")),
    path("", include("tournaments.urls")),
    path("", include("lineit_platform.web.urls")),
]
