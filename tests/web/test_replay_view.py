"""The viewer's positions are the engine's, for every ruleset and table size; the viewer fetches
them as JSON (a finished game's and a live one's), and pages and JSON are gzipped when asked."""

from __future__ import annotations

import gzip
import itertools
import json
import random
import re

import pytest
from django.urls import reverse

from lineit.engine import ReplayError, new_game, record_replay
from lineit_platform.web.replay import replay_sections, replay_view
from tournaments.models import Game, LiveGame, Match
from tournaments.models.matches import compress_replay
from tournaments.services.matches.states import match_claim, match_schedule


def played(num_players: int, ruleset: str, seed: int) -> dict:  # type: ignore[type-arg]
    state = new_game(num_players, ruleset, seed=seed)
    choose = random.Random(seed)
    while not state.is_over:
        state.apply(choose.choice(state.legal_actions()))
    return record_replay(state, [f"bot{seat}" for seat in range(num_players)], seed=seed)


@pytest.mark.parametrize(("num_players", "ruleset"), [(2, "standard"), (4, "bga"), (5, "standard")])
def test_every_position_is_the_engines(num_players: int, ruleset: str) -> None:
    document = played(num_players, ruleset, seed=num_players)
    view = replay_view(document)
    state = new_game(num_players, ruleset, deck=document["deck"])
    assert len(view["positions"]) == len(document["actions"]) + 1
    for index, (seat, action) in enumerate(document["actions"]):
        position = view["positions"][index]
        assert position["current"] == seat == view["decisions"][index]["seat"]
        assert position["market"] == state.market and position["jackpots"] == state.jackpots
        assert position["legal"] == state.legal_actions() and action in position["legal"]
        assert [p["line"] for p in position["players"]] == [line.cards for line in state.lines]
        assert [p["tokens"] for p in position["players"]] == state.tokens
        assert [p["score"] for p in position["players"]] == state.scores()
        state.apply(action)
    assert [p["score"] for p in view["positions"][-1]["players"]] == document["scores"] == view["scores"]
    assert view["warning"] == ""


def test_turns_group_one_seats_decisions_within_a_round() -> None:
    view = replay_view(played(3, "standard", seed=9))
    decisions = view["decisions"]
    for before, after in itertools.pairwise(decisions):
        same_turn = before["seat"] == after["seat"] and before["round"] == after["round"] and not after["final"]
        assert (after["turn"] == before["turn"]) is same_turn
        assert after["turn"] in (before["turn"], before["turn"] + 1)
    sections = replay_sections(view)
    assert [s["title"] for s in sections][:2] == ["Round 1", "Round 2"]
    assert sum(len(s["decisions"]) for s in sections) == len(decisions)


def test_a_tampered_result_is_shown_with_a_warning_and_a_broken_replay_is_refused() -> None:
    document = played(2, "standard", seed=4)
    view = replay_view(document | {"scores": [999, 0]})
    assert "recorded scores [999, 0]" in view["warning"]
    with pytest.raises(ReplayError, match="action 0"):
        replay_view(document | {"actions": [[0, "close"], *document["actions"][1:]]})


# --- The view as JSON, the page without it, both compressed -------------------------------------


@pytest.mark.django_db
def test_the_viewer_fetches_the_view_as_json_and_the_page_no_longer_embeds_it(client, played) -> None:  # type: ignore[no-untyped-def]
    game = Game.objects.filter(match=played["first"]).first()
    assert game is not None
    page = client.get(reverse("replay-viewer", args=[game.pk]))
    html = page.content.decode()
    view_url = reverse("replay-view-json", args=[game.pk])
    assert page.status_code == 200 and f'data-view-url="{view_url}"' in html
    assert 'id="replay-data"' not in html and 'type="application/json"' not in html
    response = client.get(view_url)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    view = response.json()
    assert view == json.loads(json.dumps(replay_view(game.replay_document()) | {"warning": view["warning"]}))
    assert view["view_version"] == 2 and len(view["positions"]) == len(view["decisions"]) + 1
    # the page is now smaller than the positions it used to carry
    assert len(page.content) < len(response.content)


@pytest.mark.django_db
def test_a_bet_is_told_in_words(client, played) -> None:  # type: ignore[no-untyped-def]
    texts = {
        player["bet_text"]
        for game in Game.objects.filter(match__in=[played["first"], played["second"]])
        for position in client.get(reverse("replay-view-json", args=[game.pk])).json()["positions"]
        for player in position["players"]
        if player["bet"]
    }
    assert texts, "no bet in these games"
    for text in texts:
        assert re.fullmatch(
            r"bet ([345]): (needs [1-5] more number cards? after it, or -\1 at the close \(\d of \1 so far\)"
            r"|safe, \+\1 at the close \(\d+ number cards? after it, \1 needed\))",
            text,
        ), text


@pytest.mark.django_db
def test_pages_and_json_are_gzipped_when_asked_and_only_then(client, played) -> None:  # type: ignore[no-untyped-def]
    game = Game.objects.filter(match=played["first"]).first()
    assert game is not None
    for url in (reverse("replay-viewer", args=[game.pk]), reverse("replay-view-json", args=[game.pk]), "/"):
        plain = client.get(url)
        assert "Content-Encoding" not in plain, url
        packed = client.get(url, headers={"Accept-Encoding": "gzip, deflate, br"})
        assert packed["Content-Encoding"] == "gzip" and "Accept-Encoding" in packed["Vary"], url
        assert gzip.decompress(packed.content) == plain.content or url == "/", (
            url
        )  # the home page has a fresh CSRF token
        assert len(packed.content) < len(plain.content) / 3, url


@pytest.mark.django_db
def test_a_live_games_view_is_served_while_its_match_runs(client, played, version_factory) -> None:  # type: ignore[no-untyped-def]
    finished = Game.objects.filter(match=played["first"]).first()
    assert finished is not None
    match = match_schedule(versions=[version_factory(), version_factory()], games=2)
    claimed = match_claim(match_id=match.pk, worker="test")
    assert claimed is not None
    LiveGame.objects.create(
        match=match,
        attempt=claimed.attempts,
        index=0,
        seats=[0, 1],
        scores=[0, 0],
        ranks=[1, 2],
        replay=finished.replay,
    )
    page = client.get(reverse("live-replay-viewer", args=[match.pk, 0])).content.decode()
    url = reverse("live-replay-view-json", args=[match.pk, 0])
    assert f'data-view-url="{url}"' in page
    assert client.get(url).json()["decisions"] == replay_view(finished.replay_document())["decisions"]
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    assert client.get(url).status_code == 404


@pytest.mark.django_db
def test_a_replay_the_engine_cannot_rerun_is_a_one_line_json_error(client, played) -> None:  # type: ignore[no-untyped-def]
    game = Game.objects.filter(match=played["first"]).first()
    assert game is not None
    document = game.replay_document()
    document["actions"] = [[0, "close"], *document["actions"][1:]]
    Game.objects.filter(pk=game.pk).update(replay=compress_replay(document))
    response = client.get(reverse("replay-view-json", args=[game.pk]))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error.startswith("the engine could not re-run this replay: ") and "\n" not in error
    assert client.get(reverse("replay-view-json", args=[999_999])).status_code == 404
