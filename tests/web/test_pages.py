"""The public pages, rendered by the Django test client against real matches played in the sandbox."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from bots.models import BotVersion
from bots.services import bot_version_reject
from lineit.engine import new_game
from lineit.stats.intervals import grouped_rate
from tournaments.models import Game, GameFailure, Match, Rating, RatingEvent, compress_replay

pytestmark = pytest.mark.django_db


def replay_data(client: Any, response: Any) -> dict[str, Any]:
    """The positions the replay page's viewer fetches (its data-view-url)."""
    match = re.search(rb'data-view-url="([^"]+)"', response.content)
    assert match, "the replay page names the JSON of its positions"
    return client.get(match.group(1).decode()).json()


def test_home_shows_the_leaderboard_recent_matches_and_the_tournament_slot(client, played) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("home"))
    assert response.status_code == 200
    rows = response.context["leaderboards"][0][1]
    assert response.context["leaderboards"][0][0] == "standard"
    ratings = {rating.version_id: rating for rating in Rating.objects.filter(ruleset="standard")}
    assert [row["version"] for row in rows] == sorted(ratings, key=lambda pk: (-ratings[pk].rating, pk))
    good = next(row for row in rows if row["version"] == played["good"].pk)
    assert good["games"] == 4 and good["provisional"]  # 2 matches of 2 games, fewer than 30
    wins = sum(e.wins for e in played["good"].entries.all())
    assert good["win_rate"] == pytest.approx(wins / 4)
    html = response.content.decode()
    assert "alices-bot" in html and "bobs-bot" in html
    assert 'title="provisional: fewer than 30 rated games"' in html
    assert 'data-slot="tournaments"' in html
    for match in (played["first"], played["second"]):
        assert reverse("match-detail", args=[match.pk]) in html


def test_the_leaderboard_leaves_out_retired_and_unrated_versions(client, played, version_factory) -> None:  # type: ignore[no-untyped-def]
    unrated = version_factory(bot__name="never-played")
    played["other"].status = "retired"
    played["other"].save(update_fields=["status"])
    rows = client.get(reverse("home")).context["leaderboards"][0][1]
    listed = {row["version"] for row in rows}
    assert played["good"].pk in listed
    assert played["other"].pk not in listed and unrated.pk not in listed


def test_bot_page_shows_owner_versions_plot_matches_and_head_to_head(client, played, alice) -> None:  # type: ignore[no-untyped-def]
    bot = played["good"].bot
    response = client.get(reverse("bot-detail", args=[bot.name]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "alice" in html and f"v{played['good'].number}" in html
    assert html.count("<polyline") == 1  # one version, one ruleset
    events = RatingEvent.objects.filter(version=played["good"]).count()
    assert events == 4 and f"after {events} games" in html
    opponents = {record.opponent.name: record for record in response.context["head_to_head"]}
    assert set(opponents) == {"bobs-bot", "carols-bot"}
    for name, match in (("bobs-bot", played["first"]), ("carols-bot", played["second"])):
        record = opponents[name]
        games = list(Game.objects.filter(match=match))
        mine = [g.seats.index(0) for g in games]
        assert record.games == 2
        assert record.score_difference == sum(g.scores[s] - g.scores[1 - s] for g, s in zip(games, mine))
        expected = sum(
            1.0 if g.ranks[s] < g.ranks[1 - s] else 0.5 if g.ranks[s] == g.ranks[1 - s] else 0.0
            for g, s in zip(games, mine)
        )
        assert record.wins == expected
        low, high = record.interval
        assert 0 <= low <= record.win_rate <= high <= 1
        # the games of one duplicate deal count together, as in lineit's results table
        deals: dict[int, list[float]] = {}
        for g, s in zip(games, mine):
            share = 1.0 if g.ranks[s] < g.ranks[1 - s] else 0.5 if g.ranks[s] == g.ranks[1 - s] else 0.0
            deals.setdefault(g.deal, []).append(share)
        assert (low, high) == grouped_rate(list(deals.values()))[1:]
    # bob's bot forfeited every game: alice's bot beat it twice.
    assert opponents["bobs-bot"].win_rate == 1.0
    assert "Upload a new version" not in html  # only for the owner
    client.force_login(alice)
    assert "Upload a new version" in client.get(reverse("bot-detail", args=[bot.name])).content.decode()


def test_a_rejected_version_shows_its_kind_to_all_and_its_message_and_stderr_to_its_owner_only(  # type: ignore[no-untyped-def]
    client, alice, bob, staff, version_factory
) -> None:
    version = version_factory(bot__owner=alice, bot__name="fragile", status="validating")
    reason = "validation game failed: exception in game 1, decision 4: boom"
    bot_version_reject(version=version, reason=reason, stderr="alice's secret trace")
    page = reverse("version-detail", args=["fragile", version.number])
    status = reverse("version-status", args=["fragile", version.number])
    for user, sees in ((None, False), (bob, False), (alice, True), (staff, True)):
        client.logout()
        if user is not None:
            client.force_login(user)
        html = client.get(page).content.decode()
        assert "validation game failed: exception in game 1, decision 4" in html
        assert ("boom" in html) is sees
        assert ("alice&#x27;s secret trace" in html) is sees
        data = client.get(status).json()
        assert (
            data["status"] == "rejected"
            and data["rejection_reason"] == "validation game failed: exception in game 1, decision 4"
        )
        assert ("stderr" in data and data["message"] == "boom") is sees
    client.logout()
    bot_page = client.get(reverse("bot-detail", args=["fragile"])).content.decode()
    assert "validation game failed: exception in game 1" in bot_page
    assert "boom" not in bot_page and "secret trace" not in bot_page


def test_match_page_shows_seats_games_replays_and_failure_details_only_to_the_owner(  # type: ignore[no-untyped-def]
    client, played, alice, bob, staff
) -> None:
    match = played["first"]
    failures = GameFailure.objects.filter(match=match)
    assert failures.exists() and all("traceback only bob may read" in f.stderr_tail for f in failures)
    page = reverse("match-detail", args=[match.pk])
    for user, sees in ((None, False), (alice, False), (bob, True), (staff, True)):
        client.logout()
        if user is not None:
            client.force_login(user)
        response = client.get(page)
        html = response.content.decode()
        assert response.status_code == 200
        assert '<span class="badge badge-failed">exception</span>' in html  # the kind is public
        assert ("The bot raised an exception. " in html) is not sees  # what it means, for the others
        assert ("RuntimeError: boom" in html) is sees  # the message is the bot's own text, bob's
        assert ("traceback only bob may read" in html) is sees
    for game in Game.objects.filter(match=match):
        assert reverse("replay-viewer", args=[game.pk]) in html
        for score in game.scores:
            assert f"<strong>{score}</strong>" in html
    rows = response.context["games"]
    assert [[seat["score"] for seat in row["seats"]] for row in rows] == [
        g.scores for g in Game.objects.filter(match=match).order_by("index")
    ]
    assert "forfeit" in html


def test_a_pending_match_follows_itself_by_script(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    from tournaments.services.matches.states import match_schedule

    match = match_schedule(versions=[version_factory(), version_factory()], games=2)
    html = client.get(reverse("match-detail", args=[match.pk])).content.decode()
    assert 'http-equiv="refresh"' not in html and "Waiting for a worker" in html and "web/live.js" in html


def test_replay_page_embeds_every_position_the_engine_computes(client, played) -> None:  # type: ignore[no-untyped-def]
    game = Game.objects.filter(match=played["second"]).order_by("index").first()
    assert game is not None
    document = game.replay_document()
    response = client.get(reverse("replay-viewer", args=[game.pk]))
    assert response.status_code == 200
    data = replay_data(client, response)
    actions = document["actions"]
    assert len(data["positions"]) == len(actions) + 1 and len(data["decisions"]) == len(actions)
    state = new_game(document["num_players"], document["ruleset"], deck=document["deck"])
    for index in (0, len(actions) // 3, len(actions) // 2):
        replayed = state.clone()
        for _seat, action in actions[:index]:
            replayed.apply(action)
        position = data["positions"][index]
        assert position["market"] == replayed.market
        assert [p["line"] for p in position["players"]] == [line.cards for line in replayed.lines]
        assert [p["hand"] for p in position["players"]] == replayed.hands
        assert position["jackpots"] == replayed.jackpots
        assert position["current"] == replayed.current_player
        assert data["decisions"][index]["action"] == actions[index][1]
    assert [p["score"] for p in data["positions"][-1]["players"]] == game.scores
    assert data["scores"] == game.scores and data["players"] == document["players"]
    html = response.content.decode()
    assert 'href="#d=0"' in html and "replay.js" in html


def test_a_replay_the_engine_cannot_read_gets_a_clear_message(client, played) -> None:  # type: ignore[no-untyped-def]
    game = Game.objects.filter(match=played["second"]).first()
    assert game is not None
    document = game.replay_document() | {"format_version": 99}
    Game.objects.filter(pk=game.pk).update(replay=compress_replay(document))
    response = client.get(reverse("replay-viewer", args=[game.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "cannot be shown" in html and "format version 99 is not supported" in html
    assert "replay-data" not in html


def test_unknown_bots_matches_and_games_are_404(client, db) -> None:  # type: ignore[no-untyped-def]
    for url in (
        reverse("bot-detail", args=["nobody"]),
        reverse("version-detail", args=["nobody", 1]),
        reverse("match-detail", args=[999999]),
        reverse("replay-viewer", args=[999999]),
    ):
        assert client.get(url).status_code == 404
    assert not Match.objects.exists()


@pytest.mark.parametrize("name", ["a%00b", "nul%00", "%1b%5b2J", "a%0ab", "x" * 5000, "%C3%A9t%C3%A9", "a"])
@pytest.mark.parametrize("tail", ["", "upload/", "v1/", "v1/status.json", "v1/retire/"])
def test_a_name_no_bot_can_have_is_a_404_on_every_bot_page_not_a_server_error(  # type: ignore[no-untyped-def]
    alice, name: str, tail: str
) -> None:
    # A NUL reached PostgreSQL, which cannot compare it (500); only a bot's name reaches a view.
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    for method in ("get", "post"):
        response = getattr(client, method)(f"/bots/{name}/{tail}")
        assert response.status_code in (404, 405), (method, name, tail, response.status_code)
    assert not BotVersion.objects.exists()


def test_styles_and_scripts_come_from_the_project_not_a_cdn(client, played) -> None:  # type: ignore[no-untyped-def]
    game = Game.objects.filter(match=played["first"]).first()
    assert game is not None
    for url in (reverse("home"), reverse("replay-viewer", args=[game.pk]), reverse("bot-detail", args=["alices-bot"])):
        html = client.get(url).content.decode()
        sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html)
        assert sources and all(source.startswith("/static/") for source in sources), sources
        for source in sources:
            response = client.get(source)  # served by WhiteNoise, as in the default run
            assert response.status_code == 200, source
            b"".join(response.streaming_content)
