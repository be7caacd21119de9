"""Read-only pages. A replay is public (it holds no stderr), so anyone may fetch it."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404

from .models import Game


def replay_json(request: HttpRequest, game_id: int) -> JsonResponse:
    game = get_object_or_404(Game.objects.only("replay"), pk=game_id)
    return JsonResponse(game.replay_document())
