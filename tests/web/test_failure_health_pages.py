"""Failure health and placement on the pages: the bot page, the version page and My bots count a
version's failures by kind in its recent matches (linking the failing games), the version page
says why a version was taken off the ladder and lets its owner (only) put it back, and shows a
placement's progress; a page's queries do not grow with its rows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots.models import BotVersion
from lineit.engine import RULES_VERSION
from tournaments.models import Game, GameFailure, Match, MatchEntrant, Rating, compress_replay
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule

pytestmark = pytest.mark.django_db

CRASHING_BOT = b"""def act(observation):
    raise RuntimeError("boom")
"""


def page(version: BotVersion) -> str:
    return f"/bots/{version.bot.name}/v{version.number}/"


@override_settings(LADDER_MAX_CONSECUTIVE_FAILING_MATCHES=2)
def test_a_crashing_version_shows_its_failures_its_removal_and_its_owner_puts_it_back(
    client, alice, bob, version_factory
) -> None:  # type: ignore[no-untyped-def]
    crashing = version_factory(bot__owner=alice, bot__name="crashy", code=CRASHING_BOT)
    good = version_factory(bot__owner=bob, bot__name="steady")
    matches = []
    for seed in (1, 2):
        match = match_schedule(versions=[crashing, good], games=2, ranked=True, origin="ladder", seed=seed)
        matches.append(match_execute(match_id=match.pk, worker="test"))
    failure = GameFailure.objects.filter(match=matches[-1]).order_by("game__index").first()
    assert failure is not None

    shown = client.get(page(crashing)).content.decode()
    assert "4 failures</strong> in 2 of 2 matches" in shown
    assert '<span class="badge badge-failed">exception</span></td><td class="num">4</td>' in shown
    assert f'href="/games/{failure.game_id}/replay/#d={failure.decision}"' in shown
    assert f'href="/matches/{matches[-1].pk}/#failures-title"' in shown
    assert "Taken off the ladder" in shown and "failed in 2 ranked matches in a row" in shown
    assert "back on the ladder</button>" not in shown  # an anonymous visitor

    bot_page = client.get("/bots/crashy/").content.decode()
    assert "4 failures</strong> in 2 of 2 matches" in bot_page and "off the ladder</span>" in bot_page
    assert "No failures in 2 matches" in client.get("/bots/steady/").content.decode()

    client.force_login(bob)
    assert "back on the ladder</button>" not in client.get(page(crashing)).content.decode()
    assert client.post(page(crashing) + "ladder-restore/").status_code == 403
    assert BotVersion.objects.get(pk=crashing.pk).ladder_removed_at is not None

    client.force_login(alice)
    mine = client.get("/me/bots/").content.decode()
    assert "exception 4</span>" in mine and "off the ladder</span>" in mine
    response = client.post(page(crashing) + "ladder-restore/", follow=True)
    assert "is back on the ladder" in response.content.decode()
    restored = BotVersion.objects.get(pk=crashing.pk)
    assert restored.ladder_removed_at is None and restored.ladder_failing_matches == 0
    assert "On the ladder." in client.get(page(crashing)).content.decode()


@override_settings(PLACEMENT_GAMES=30, LADDER_RULESETS=["standard"])
def test_the_version_page_shows_the_placement_progress(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(placement_started_at=timezone.now())
    Rating.objects.create(version=version, ruleset="standard", rules_version=RULES_VERSION, rating=1500, games=12)
    assert "placement: 12 games</strong>" in client.get(page(version)).content.decode()
    assert "(at most 30 games)" in client.get(page(version)).content.decode()
    assert "placement: 12 games</span>" in client.get(f"/bots/{version.bot.name}/").content.decode()
    BotVersion.objects.filter(pk=version.pk).update(placement_ended_at=timezone.now())
    assert "placement:" not in client.get(page(version)).content.decode()


def failing_versions(owner, bot_factory, version_factory, count: int) -> None:  # type: ignore[no-untyped-def]
    """``count`` bots of ``owner``, each with a version that failed in a finished match."""
    for _ in range(count):
        version = version_factory(bot=bot_factory(owner=owner), placement_started_at=timezone.now())
        match = Match.objects.create(
            ruleset="standard", rules_version=RULES_VERSION, num_players=2, games=1, seed=1,
            status="finished", finished_at=timezone.now(), failure_count=1,
        )  # fmt: skip
        MatchEntrant.objects.create(match=match, index=0, version=version)
        game = Game.objects.create(
            match=match, index=0, deal=0, deck_seed=1, seats=[0, 0], scores=[0, 0], ranks=[1, 2],
            replay=compress_replay({}),
        )  # fmt: skip
        GameFailure.objects.create(game=game, match=match, version=version, seat=0, kind="timeout", message="x")


def queries(client, url: str) -> int:  # type: ignore[no-untyped-def]
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_my_bots_and_the_bot_page_cost_the_same_queries_for_one_row_or_many(
    client, alice, bot_factory, version_factory
) -> None:  # type: ignore[no-untyped-def]
    client.force_login(alice)
    failing_versions(alice, bot_factory, version_factory, 1)
    bot = BotVersion.objects.get(bot__owner=alice).bot
    few_mine, few_bot = queries(client, "/me/bots/"), queries(client, f"/bots/{bot.name}/")
    failing_versions(alice, bot_factory, version_factory, 12)
    for _ in range(12):
        version_factory(bot=bot, placement_started_at=timezone.now())
    assert queries(client, "/me/bots/") == few_mine
    assert queries(client, f"/bots/{bot.name}/") == few_bot
    assert client.get("/me/bots/").content.decode().count("timeout 1</span>") == 13
