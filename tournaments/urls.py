from django.urls import path

from . import views

urlpatterns = [
    path("replays/<int:game_id>.json", views.replay_json, name="replay-json"),
]
