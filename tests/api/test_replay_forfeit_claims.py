"""The site's view of a replay's forfeits (issue 14): a stored replay whose forfeits were edited
does not verify, the replay page shows the match's records (its Game row) and warns, and a
genuine forfeit is shown with what the moves cannot prove."""

from __future__ import annotations

from typing import Any

import pytest
from api_helpers import CRASHING_BOT, play
from django.urls import reverse

from lineit.engine import ranks_with_forfeits
from tournaments.models import Game, compress_replay, decompress_replay

pytestmark = pytest.mark.django_db

SOLID_BOT = b"""def act(observation):
    return observation["legal_actions"][0]
"""


def test_a_forged_forfeit_fails_and_the_page_keeps_the_match_s_records(
    alice: Any, version_factory: Any, as_user: Any
) -> None:
    crashing = version_factory(bot__owner=alice, code=CRASHING_BOT)
    solid = version_factory(bot__owner=alice, code=SOLID_BOT)
    game = Game.objects.filter(match=play([crashing, solid], games=1)).get()
    genuine = as_user(None).get(f"/api/games/{game.pk}/verification/").json()
    assert genuine["ok"] is True and "unverified" in genuine["message"] and "the referee's word" in genuine["message"]
    page = as_user(None).get(reverse("replay-viewer", args=[game.pk])).content.decode()
    assert "why it forfeited they cannot show" in page

    document = decompress_replay(game.replay)
    innocent = next(seat for seat in range(2) if seat not in game.forfeits)
    decision = next(index for index, (seat, _) in enumerate(document["actions"]) if seat == innocent)
    document["forfeits"] = [0, 1]
    document["ranks"] = ranks_with_forfeits(document["scores"], [0, 1])
    document["meta"]["failures"].append({"kind": "timeout", "seat": innocent, "game": 0, "decision": decision})
    Game.objects.filter(pk=game.pk).update(replay=compress_replay(document))

    assert as_user(None).get(f"/api/games/{game.pk}/verification/").json()["ok"] is False
    page = as_user(None).get(reverse("replay-viewer", args=[game.pk])).content.decode()
    assert "the stand-in plays for it" in page
    assert page.count("badge-failed") == len(game.forfeits) == 1  # the row's forfeits, not the file's
