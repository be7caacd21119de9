"""Creating and following tournaments as people do: staff in the admin (and recurring ones through
the API), everyone on the pages (bracket with links to every match and replay, standings after
each round) and in the API; owners sign up on the page."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from tournament_helpers import play_out

from tournaments.models import Match, RecurringTournament, Tournament
from tournaments.services.tournaments.creation import tournament_create
from tournaments.services.tournaments.running import tournament_start

pytestmark = [pytest.mark.django_db]


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api(user: Any | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def admin_form(versions: list[Any], **extra: Any) -> dict[str, Any]:
    starts = timezone.now() + timedelta(hours=1)
    return {
        "name": "Admin cup",
        "format": "single",
        "table_size": "2",
        "options": "{}",
        "games_per_pairing": "2",
        "duplicate_deals": "on",
        "ruleset": "standard",
        "limits": '{"move_seconds": 0.5}',
        "participation": "chosen",
        "max_entrants": "",
        "starts_at_0": starts.strftime("%Y-%m-%d"),
        "starts_at_1": starts.strftime("%H:%M:%S"),
        "signup_deadline_0": "",
        "signup_deadline_1": "",
        "versions": [v.pk for v in versions],
        "seed": "11",
    } | extra


def test_staff_create_a_tournament_in_the_admin_and_everyone_follows_it(staff, version_factory) -> None:
    versions = [version_factory() for _ in range(4)]
    admin = signed_in(staff)
    response = admin.post("/admin/tournaments/tournament/add/", admin_form(versions))
    assert response.status_code == 302, response.content.decode()[:3000]
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.status, tournament.seed, tournament.created_by) == (
        "Admin cup",
        "scheduled",
        11,
        staff,
    )
    assert tournament.limits == {"move_seconds": 0.5} and tournament.start_task is not None
    assert sorted(tournament.entries.values_list("version_id", flat=True)) == sorted(v.pk for v in versions)
    assert admin.get(f"/admin/tournaments/tournament/{tournament.pk}/change/").status_code == 200

    response = admin.post(
        "/admin/tournaments/tournament/", {"action": "start_now", "_selected_action": [tournament.pk]}
    )
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == "running" and Match.objects.filter(tournament=tournament).count() == 2

    # Followed through the API while it runs and once it is over.
    anyone = api(None)
    assert anyone.get(f"/api/tournaments/{tournament.pk}/").json()["status"] == "running"
    tournament = play_out(tournament)
    standings = anyone.get(f"/api/tournaments/{tournament.pk}/standings/").json()["after_round"]
    assert [table["round"] for table in standings] == [1, 2] and len(standings[-1]["rows"]) == 4
    bracket = anyone.get(f"/api/tournaments/{tournament.pk}/bracket/").json()
    assert bracket["champion"] == standings[-1]["rows"][0]["entrant"]


def test_the_admin_refuses_a_tournament_that_cannot_be_played(staff, version_factory) -> None:
    response = signed_in(staff).post("/admin/tournaments/tournament/add/", admin_form([version_factory()]))
    assert response.status_code == 200
    assert "needs 2 to 1024 entrants" in response.content.decode()
    assert not Tournament.objects.exists()


def test_staff_set_up_a_recurring_tournament_in_the_admin(staff) -> None:
    first = timezone.now() + timedelta(days=1)
    form = {
        "name": "Weekly Swiss",
        "format": "swiss",
        "table_size": "2",
        "options": "{}",
        "games_per_pairing": "2",
        "duplicate_deals": "on",
        "ruleset": "standard",
        "limits": "{}",
        "participation": "all-active",
        "max_entrants": "",
        "enabled": "on",
        "every": "7 00:00:00",
        "next_run_at_0": first.strftime("%Y-%m-%d"),
        "next_run_at_1": first.strftime("%H:%M:%S"),
        "signup_window": "00:00:00",
    }
    admin = signed_in(staff)
    assert admin.post("/admin/tournaments/recurringtournament/add/", form).status_code == 302
    weekly = RecurringTournament.objects.get()
    assert weekly.every == timedelta(days=7) and weekly.enabled
    refused = admin.post("/admin/tournaments/recurringtournament/add/", form | {"participation": "chosen"})
    assert refused.status_code == 200 and "every active version or open sign-up" in refused.content.decode()
    assert RecurringTournament.objects.count() == 1


def test_recurring_tournaments_through_the_api_are_for_staff_only(alice, staff) -> None:
    body = {
        "name": "Nightly round robin",
        "format": "round-robin",
        "games_per_pairing": 2,
        "every": "1 00:00:00",
        "next_run_at": (timezone.now() + timedelta(hours=2)).isoformat(),
    }
    assert api(alice).post("/api/recurring-tournaments/", body, format="json").status_code == 403
    assert api(None).get("/api/recurring-tournaments/").status_code == 401
    created = api(staff).post("/api/recurring-tournaments/", body, format="json")
    assert created.status_code == 201, created.content
    nightly = created.json()
    assert (nightly["participation"], nightly["every"], nightly["tournaments"]) == ("all-active", "1 00:00:00", [])

    url = f"/api/recurring-tournaments/{nightly['id']}/"
    assert api(staff).patch(url, {"enabled": False}, format="json").json()["enabled"] is False
    refused = api(staff).patch(url, {"options": {"roundz": 3}}, format="json")
    assert refused.status_code == 400 and "unknown options" in refused.json()["error"]["message"]
    too_often = api(staff).patch(url, {"every": "00:00:10"}, format="json")
    assert too_often.status_code == 400 and "once a minute" in too_often.json()["error"]["message"]
    assert RecurringTournament.objects.get().options == {}
    assert api(staff).get("/api/recurring-tournaments/").json()["count"] == 1
    assert api(staff).delete(url).status_code == 204
    assert not RecurringTournament.objects.exists()


def test_the_bracket_page_links_every_match_and_replay(version_factory, client) -> None:
    versions = [version_factory() for _ in range(5)]
    tournament = tournament_create(
        name="Five", format="single", starts_at=timezone.now(), versions=versions, games_per_pairing=2
    )
    tournament = play_out(tournament_start(tournament_id=tournament.pk))
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    svg = page[page.index("<svg") : page.index("</svg>")]
    for match in Match.objects.filter(tournament=tournament):
        assert f'href="/matches/{match.pk}/"' in svg
        for game in match.game_logs.all():
            assert f'href="/games/{game.pk}/replay/"' in svg
            assert f'href="/games/{game.pk}/replay/"' in page[page.index('id="rounds-title"') :]
    assert svg.count('class="box box-bye"') == 3  # seeds 1-3 wait for the play-in
    assert len(re.findall(r'<details [^>]*id="standings-\d+"', page)) == tournament.round_number
    assert "Champion:" in page
    listing = client.get("/tournaments/").content.decode()
    assert f'href="/tournaments/{tournament.pk}/"' in listing


def test_a_round_robin_page_shows_each_round_and_its_standings(version_factory, client) -> None:
    versions = [version_factory() for _ in range(3)]
    tournament = tournament_create(
        name="Three", format="round-robin", starts_at=timezone.now(), versions=versions, games_per_pairing=2
    )
    tournament = tournament_start(tournament_id=tournament.pk)
    running = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "<svg" not in running and "(playing)" in running and 'http-equiv="refresh"' not in running
    assert "web/live.js" in running  # it follows its round by script
    tournament = play_out(tournament)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert page.count('<h3 id="round-') == 3 and page.count('<span class="muted">bye</span>') == 3
    assert "(final)" in page and 'http-equiv="refresh"' not in page
    assert client.get("/tournaments/987654/").status_code == 404


def test_owners_sign_up_on_the_page_while_sign_up_is_open(alice, bob, version_factory) -> None:
    mine = version_factory(bot__owner=alice, bot__name="alices-bot")
    bobs = version_factory(bot__owner=bob)
    tournament = tournament_create(
        name="Open", format="swiss", participation="open", starts_at=timezone.now() + timedelta(hours=1)
    )
    page = signed_in(alice).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'name="bot"' in page and "alices-bot" in page
    sign_up = f"/tournaments/{tournament.pk}/sign-up/"
    assert signed_in(alice).post(sign_up, {"bot": mine.bot_id}).status_code == 302
    assert list(tournament.entries.values_list("bot_id", flat=True)) == [mine.bot_id]
    signed_in(alice).post(sign_up, {"bot": bobs.bot_id})  # not hers: refused with a message
    assert tournament.entries.count() == 1
    assert Client().post(sign_up, {"bot": mine.bot_id}).status_code == 302  # to the login page
    assert 'name="bot"' not in signed_in(alice).get(f"/tournaments/{tournament.pk}/").content.decode()


@pytest.mark.parametrize("raw", ["²", "٣", "-1", "1e3", "", "99999999999999999999", "1\x00"])
def test_a_sign_up_naming_no_bot_is_told_so_never_a_server_error(alice, version_factory, raw: str) -> None:  # type: ignore[no-untyped-def]
    # '²' passed str.isdigit() and int() refused it: a 500.
    version_factory(bot__owner=alice)
    tournament = tournament_create(
        name="Open", format="swiss", participation="open", starts_at=timezone.now() + timedelta(hours=1)
    )
    client = signed_in(alice)
    client.raise_request_exception = False
    response = client.post(f"/tournaments/{tournament.pk}/sign-up/", {"bot": raw})
    assert response.status_code == 302
    assert "Choose one of your bots." in client.get(response.url).content.decode()
    assert not tournament.entries.exists()
