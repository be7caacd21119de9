"""URLs: the admin and the replay documents (the API is added by its own issue)."""

from django.contrib import admin
from django.urls import path

from tournaments import views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("replays/<int:game_id>.json", views.replay_json, name="replay-json"),
]
