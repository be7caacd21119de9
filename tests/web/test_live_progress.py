"""A pending match's page follows it without reloading: a small JSON it polls gives the queue
position and an estimate while the match waits, and its games as they end while it plays; a game
already played can be watched before the match ends; no page refreshes itself."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from bots.code_cache import version_source
from bots.runner import sandbox_match_run
from lineit.botkit.limits import Limits
from tournaments.models import Game, LiveGame, Match
from tournaments.services.matches.execution import Progress
from tournaments.services.matches.results import match_record_result
from tournaments.services.matches.states import match_claim, match_schedule, match_spec

pytestmark = pytest.mark.django_db

QUICK = Limits(move_seconds=0.05, bank_seconds=1, move_timeout_seconds=0.5, startup_seconds=5)


def progress(client, match: Match) -> dict:  # type: ignore[no-untyped-def]
    response = client.get(reverse("match-progress", args=[match.pk]))
    assert response.status_code == 200
    return response.json()


def test_a_queued_match_says_how_many_are_ahead_in_its_queue(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    ladder = [match_schedule(versions=versions, games=1, ranked=True, origin=Match.Origin.LADDER) for _ in range(3)]
    requested = [match_schedule(versions=versions, games=1) for _ in range(2)]
    running = match_schedule(versions=versions, games=1)
    match_claim(match_id=running.pk, worker="test")  # playing: ahead of nobody
    last_ladder = match_schedule(versions=versions, games=1, ranked=True, origin=Match.Origin.LADDER)

    first = progress(client, requested[0])
    assert first["queue"] == {"queue": "interactive", "ahead": 0, "estimate_seconds": None}
    assert first["text"] == "Waiting for a worker: no match ahead of this one."
    assert progress(client, requested[1])["queue"]["ahead"] == 1  # the ladder's backlog is not ahead of it
    # a bulk match waits behind the bulk matches before it and every interactive one
    assert progress(client, ladder[1])["queue"]["ahead"] == 1 + 2
    behind = progress(client, last_ladder)
    assert behind["queue"]["ahead"] == 3 + 2
    assert "5 matches ahead of this one" in behind["text"]
    assert behind["state"] == "queued:0"


def test_the_estimate_goes_by_the_pace_of_the_queue_s_recent_matches(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]
    now = timezone.now()
    done = match_schedule(versions=versions, games=1)
    Match.objects.filter(pk=done.pk).update(
        status=Match.Status.FINISHED, started_at=now - timedelta(seconds=130), finished_at=now - timedelta(seconds=10)
    )
    old = match_schedule(versions=versions, games=1)  # finished long ago: not recent
    Match.objects.filter(pk=old.pk).update(
        status=Match.Status.FINISHED, started_at=now - timedelta(hours=3), finished_at=now - timedelta(hours=2)
    )
    ahead = match_schedule(versions=versions, games=1)
    waiting = match_schedule(versions=versions, games=1)
    queue = progress(client, waiting)["queue"]
    assert queue == {"queue": "interactive", "ahead": 1, "estimate_seconds": 2 * 120}
    assert "(about 4 minutes)" in progress(client, waiting)["text"]
    # two of its queue playing at once: half the time
    for match in (ahead, match_schedule(versions=versions, games=1)):
        Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    assert progress(client, waiting)["queue"] == {"queue": "interactive", "ahead": 0, "estimate_seconds": 60}


def test_games_can_be_watched_as_they_end_and_then_from_the_record(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=3, limits=QUICK, seed=5)
    claimed = match_claim(match_id=match.pk, worker="test")
    assert claimed is not None
    sources = [version_source(entrant.version) for entrant in claimed.entrants.order_by("index")]
    seen: list[dict] = []

    def watched(record):  # type: ignore[no-untyped-def]
        live(record)
        seen.append(progress(client, match))  # what the page sees while the match is still playing

    live = Progress(match.pk, claimed.attempts)
    result = sandbox_match_run(spec=match_spec(claimed), sources=sources, limits=QUICK, on_game=watched)
    assert [len(data["live_games"]) for data in seen] == [1, 2, 3]
    assert [data["games_played"] for data in seen] == [1, 2, 3]
    assert seen[0]["text"] == "Playing: 1 of 3 games done."
    game = seen[-1]["live_games"][1]
    assert game["scores"] == result.games[1].scores

    page = client.get(game["url"])
    assert page.status_code == 200
    assert "still being played" in page.content.decode()
    assert page.context["view"]["scores"] == result.games[1].scores
    json_url = reverse("live-replay-json", args=[match.pk, 1])
    assert json_url in page.content.decode()
    assert client.get(json_url).json()["format_version"] == result.games[1].replay["format_version"]

    match_record_result(match_id=match.pk, attempt=claimed.attempts, result=result)
    assert not LiveGame.objects.filter(match=match).exists()  # the Game rows are the record now
    ended = client.get(game["url"])
    assert ended.status_code == 302
    assert ended.url == reverse("replay-viewer", args=[Game.objects.get(match=match, index=1).pk])
    assert client.get(json_url).status_code == 404
    assert progress(client, match)["state"] == f"finished:{claimed.attempts}"


def test_a_new_attempt_starts_with_no_live_games(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=2, limits=QUICK)
    claimed = match_claim(match_id=match.pk, worker="test")
    assert claimed is not None
    LiveGame.objects.create(
        match=match, attempt=claimed.attempts, index=0, seats=[0, 1], scores=[1, 2], ranks=[2, 1], replay=b""
    )
    assert len(progress(client, match)["live_games"]) == 1
    Match.objects.filter(pk=match.pk).update(status=Match.Status.QUEUED)  # released
    assert match_claim(match_id=match.pk, worker="test") is not None
    data = progress(client, match)
    assert data["live_games"] == [] and data["state"] == "running:2"
    assert not LiveGame.objects.filter(match=match).exists()


def test_a_pending_match_page_follows_it_by_script_not_by_refreshing(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    match = match_schedule(versions=[version_factory(), version_factory()], games=2)
    html = client.get(reverse("match-detail", args=[match.pk])).content.decode()
    assert 'http-equiv="refresh"' not in html
    assert f'data-live="{reverse("match-progress", args=[match.pk])}"' in html
    assert 'data-live-state="queued:0"' in html and "web/live.js" in html


def test_progress_of_no_match_is_not_found(client) -> None:  # type: ignore[no-untyped-def]
    assert client.get(reverse("match-progress", args=[999_999])).status_code == 404
    assert client.get(reverse("live-replay-viewer", args=[999_999, 0])).status_code == 404


def test_a_running_tournament_page_follows_its_round(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    from tournaments.services.tournaments.creation import tournament_create
    from tournaments.services.tournaments.running import tournament_start

    versions = [version_factory() for _ in range(4)]
    tournament = tournament_create(
        name="Live cup", format="single", starts_at=timezone.now(), versions=versions, games_per_pairing=2
    )
    tournament_start(tournament_id=tournament.pk)
    url = reverse("tournament-progress", args=[tournament.pk])
    data = client.get(url).json()
    assert (data["round"], data["matches"], data["matches_ended"], data["games"]) == (1, 2, 0, 4)
    assert data["state"] == "running:1:0"
    assert data["text"] == "Playing round 1: 0 of 2 matches done, 0 of 4 games played."
    html = client.get(reverse("tournament-detail", args=[tournament.pk])).content.decode()
    assert 'http-equiv="refresh"' not in html
    assert f'data-live="{url}"' in html and 'data-live-state="running:1:0"' in html
    # a match of the round ends: the state changes, so the page is drawn again with its result
    Match.objects.filter(tournament=tournament).filter(
        pk=Match.objects.filter(tournament=tournament).first().pk
    ).update(status=Match.Status.CANCELLED)
    assert client.get(url).json()["state"] == "running:1:1"


def test_a_version_being_validated_is_followed_by_script(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(status="validating")
    html = client.get(reverse("version-detail", args=[version.bot.name, version.number])).content.decode()
    assert 'http-equiv="refresh"' not in html
    status_url = reverse("version-status", args=[version.bot.name, version.number])
    assert f'data-live="{status_url}"' in html and 'data-live-state="validating"' in html
    assert client.get(status_url).json()["state"] == "validating"
