"""A format that only this test knows, registered once, is played by every face: the kit plays a
tournament of it, the platform takes it through the API and its services and runs it, the pages
show it, the CLI lists it and plays it; unregistered, every face forgets it again.

The format, king of the hill: the top seed holds the hill; each round the next seed challenges
whoever holds it, and the winner holds it. n - 1 rounds, ranked by points (the default standings).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from tournament_helpers import play_out

from lineit import formats
from lineit.cli.main import main as lineit_main
from lineit.formats.registry import Table
from lineit_platform.api.filters import TournamentFilter
from tournaments.models import Match, Tournament

BUILT_IN = ("round-robin", "swiss", "single", "double")


class KingOfTheHill(formats.TournamentFormat):
    name = "king"
    label = "king of the hill"

    def check(self, entrants: int, options: formats.Options) -> None:
        if options.table_size != 2:
            raise formats.FormatError("king of the hill is played at tables of 2")

    def pair(self, state: formats.TournamentState) -> list[Table] | None:
        number = len(state.rounds) + 1
        if number >= len(state.entrants):
            return None
        holder = state.entrants[0].id
        for round_ in state.played_rounds():
            holder = (round_.outcomes or [])[0].results[0].entrant  # best first
        return [((holder, state.entrants[number].id), None)]

    def planned_rounds(self, state: formats.TournamentState) -> int | None:
        return len(state.entrants) - 1


@contextlib.contextmanager
def registered(format: formats.TournamentFormat) -> Iterator[formats.TournamentFormat]:
    formats.register(format)
    try:
        yield format
    finally:
        formats.unregister(format.name)


@pytest.fixture
def king() -> Iterator[formats.TournamentFormat]:
    with registered(KingOfTheHill()) as format:
        yield format


def staff_api(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def test_the_kit_plays_it_and_asks_it_for_its_rounds_and_standings(king: formats.TournamentFormat) -> None:
    entrants = [formats.Entrant(id=n, rating=2000 - n) for n in range(1, 6)]
    state = formats.first_round("king", entrants, seed=3)
    assert formats.planned_rounds(state) == 4 and formats.bracket_json(state) is None
    while not formats.is_finished(state):
        assert state.pending is not None
        (pairing,) = state.pending.pairings
        # the challenger (the later seed) wins every time: seed n holds the hill after round n - 1
        state = formats.next_round(state, [formats.outcome_by_order(pairing, pairing.entrants[::-1])])
    assert [round_.pairings[0].entrants for round_ in state.rounds] == [(1, 2), (2, 3), (3, 4), (4, 5)]
    table = formats.final_standings(state)
    assert {row.entrant: row.points for row in table} == {1: 0.0, 2: 1.0, 3: 1.0, 4: 1.0, 5: 1.0}
    assert table[-1].entrant == 1  # the first holder, beaten at once
    assert formats.TournamentState.from_dict(state.to_dict()).to_dict() == state.to_dict()
    with pytest.raises(formats.FormatError, match="tables of 2"):
        formats.first_round("king", entrants, formats.Options(table_size=3))


def test_the_cli_lists_it_and_plays_it(king: formats.TournamentFormat, capsys: pytest.CaptureFixture[str]) -> None:
    assert lineit_main(["tournament", "--help"]) == 0
    assert "{round-robin,swiss,single,double,king}" in capsys.readouterr().out
    status = lineit_main(
        ["tournament", "random", "greedy", "random", "--format", "king", "--games-per-pairing", "2", "--in-process"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.startswith("Tournament: king of the hill, 3 bots, tables of 2, 2 games per pairing")
    assert "Round 2:" in out and "Standings:" in out and "Bracket" not in out
    assert lineit_main(["tournament", "random", "greedy", "--format", "king", "--rounds", "2"]) == 2
    assert "--rounds is for --format swiss" in capsys.readouterr().err


@pytest.mark.django_db
def test_the_platform_takes_it_through_the_api_runs_it_and_the_pages_show_it(
    king: formats.TournamentFormat, staff: Any, version_factory: Any
) -> None:
    versions = [version_factory() for _ in range(4)]
    body = {
        "name": "Hill cup",
        "format": "king",
        "starts_at": (timezone.now() + timedelta(minutes=5)).isoformat(),
        "games_per_pairing": 2,
        "versions": [version.pk for version in versions],
    }
    client = staff_api(staff)
    refused = client.post("/api/tournaments/", body | {"options": {"rounds": 2}}, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == "rounds is an option of swiss tournaments, not of king"
    created = client.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["format"] == "king"
    tournament_id = created.json()["id"]
    assert client.post(f"/api/tournaments/{tournament_id}/start/").json()["status"] == "running"

    finished = play_out(Tournament.objects.get(pk=tournament_id))
    assert finished.status == Tournament.Status.FINISHED and finished.round_number == 3
    assert Match.objects.filter(tournament=finished).count() == 3  # one challenge a round

    anonymous = APIClient()
    assert anonymous.get(f"/api/tournaments/{tournament_id}/").json()["format"] == "king"
    assert anonymous.get(f"/api/tournaments/{tournament_id}/bracket/").status_code == 404
    # The list's format filter offers it (read through its filter set: in a query string DRF takes
    # ?format= for the response's format, before any filter sees it).
    chosen = TournamentFilter({"format": "king"}, queryset=Tournament.objects.all())
    assert chosen.is_valid() and [t.pk for t in chosen.qs] == [tournament_id]
    final = anonymous.get(f"/api/tournaments/{tournament_id}/standings/").json()["after_round"][-1]["rows"]
    assert len(final) == 4

    page = Client().get(reverse("tournament-detail", args=[tournament_id])).content.decode()
    assert "king of the hill, tables of 2" in page
    assert 'id="cross-title"' in page and 'id="bracket-title"' not in page  # a table, no bracket
    assert "Buchholz" not in page and "Out in" not in page  # not among its tie-breaks; no bracket
    assert "Winner: " in page  # first of the final standings
    assert "king of the hill" in Client().get(reverse("tournament-list")).content.decode()


@pytest.mark.django_db
def test_unregistered_every_face_forgets_it(staff: Any, version_factory: Any) -> None:
    with registered(KingOfTheHill()):
        assert formats.format_names() == (*BUILT_IN, "king")
    assert formats.format_names() == BUILT_IN
    assert list(formats.FORMAT_CHOICES) == list(Tournament._meta.get_field("format").choices)
    body = {
        "name": "Hill cup",
        "format": "king",
        "starts_at": (timezone.now() + timedelta(minutes=5)).isoformat(),
        "versions": [version_factory().pk, version_factory().pk],
    }
    refused = staff_api(staff).post("/api/tournaments/", body, format="json")
    assert refused.status_code == 400 and "format" in refused.json()["error"]["fields"]
    assert not TournamentFilter({"format": "king"}, queryset=Tournament.objects.all()).is_valid()
    with pytest.raises(formats.FormatError, match="unknown format 'king'"):
        formats.first_round("king", [formats.Entrant(id=1), formats.Entrant(id=2)])
    assert lineit_main(["tournament", "random", "greedy", "--format", "king"]) == 2
