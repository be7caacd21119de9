"""URLs: the admin and the replay documents (the API is added by its own issue)."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("tournaments.urls")),
]
