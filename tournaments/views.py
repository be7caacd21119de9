"""Read-only pages. A replay is public (it holds no stderr), so anyone may fetch it, signed by the
site (lineit_platform/replay_signing.py)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404

from lineit_platform.replay_signing import signed_replay

from .models import Game


def replay_json(request: HttpRequest, game_id: int) -> JsonResponse:
    game = get_object_or_404(Game.objects.only("replay"), pk=game_id)
    return JsonResponse(signed_replay(game.replay_document()))
