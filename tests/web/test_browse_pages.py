"""The browsing pages (/matches/, /bots/, /leaderboard/, a user's page), a version's own sections,
the password reset by email and the home page's split of results and queue: rendered by the
Django test client over matches really played in the sandbox (the ``played`` fixture) and, for
paging and query counts, rows written in bulk as the services write them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bots.code_cache import version_code
from bots.models import BotVersion
from lineit.engine import RULES_VERSION
from tournaments.models import Game, Match, MatchEntrant, Rating, RatingEvent, compress_replay
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.results import entrant_summary
from tournaments.services.matches.states import match_schedule

pytestmark = pytest.mark.django_db


def bulk_matches(count: int, versions: list[BotVersion], **fields: Any) -> list[Match]:
    """Finished matches of two seats, the first entrant winning, with their entrants and the
    summary the services write on the match's row."""
    values = {"ruleset": "standard", "rules_version": RULES_VERSION, "num_players": 2, "games": 2, "seed": 0}
    values.update(status="finished", **fields)
    matches = Match.objects.bulk_create(Match(**values) for _ in range(count))
    entrants = MatchEntrant.objects.bulk_create(
        MatchEntrant(match=match, index=i, version=versions[i], total_score=10 - i, mean_rank=1.0 + i, wins=2 - 2 * i)
        for match in matches
        for i in range(2)
    )
    for match in matches:
        match.entrant_summary = entrant_summary(e for e in entrants if e.match_id == match.pk)
    Match.objects.bulk_update(matches, ["entrant_summary"])
    Game.objects.bulk_create(
        Game(
            match=match,
            index=g,
            deal=g,
            deck_seed=g,
            seats=[0, 1],
            scores=[5, 2],
            ranks=[1, 2],
            replay=compress_replay({}),
        )
        for match in matches
        for g in range(values["games"])
    )
    return matches


def queries(client: Any, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, response.content[:500]
    return len(captured)


def ids_on(response: Any) -> list[int]:
    return [row["id"] for row in response.context["matches"]]


# --- /matches/ ---------------------------------------------------------------------------------


def test_the_match_list_shows_every_match_newest_first_with_its_winner(client, played) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("match-list"))
    assert response.status_code == 200
    assert ids_on(response) == sorted(Match.objects.values_list("pk", flat=True), reverse=True)
    html = response.content.decode()
    for match in (played["first"], played["second"]):
        assert reverse("match-detail", args=[match.pk]) in html
    # alice's good bot beat bob's crashing bot: its entrant is the one marked.
    first = next(row for row in response.context["matches"] if row["id"] == played["first"].pk)
    winners = [entrant["bot_name"] for entrant in first["entrants"] if entrant["winner"]]
    assert winners == ["alices-bot"]
    assert "winner: </span><a" in html


def test_the_match_list_filters_by_bot_version_and_the_match_s_fields(client, played, alice) -> None:  # type: ignore[no-untyped-def]
    first, second = played["first"].pk, played["second"].pk
    url = reverse("match-list")
    assert ids_on(client.get(url, {"bot": "bobs-bot"})) == [first]
    assert ids_on(client.get(url, {"bot": "alices-bot"})) == [second, first]
    assert ids_on(client.get(url, {"bot": "alices-bot", "version": played["good"].number})) == [second, first]
    assert ids_on(client.get(url, {"bot": "carols-bot", "version": played["other"].number})) == [second]
    assert ids_on(client.get(url, {"ranked": "yes"})) == [second, first]
    assert ids_on(client.get(url, {"ranked": "no"})) == []
    assert ids_on(client.get(url, {"players": 2, "ruleset": "standard", "status": "finished"})) == [second, first]
    assert ids_on(client.get(url, {"players": 3})) == []
    assert ids_on(client.get(url, {"status": "queued"})) == []
    assert ids_on(client.get(url, {"origin": "manual"})) == [second, first]
    assert ids_on(client.get(url, {"origin": "ladder"})) == []
    assert ids_on(client.get(url, {"tournament": 1})) == []
    Match.objects.filter(pk=first).update(requested_by=alice)
    assert ids_on(client.get(url, {"requested_by": "alice"})) == [first]


def test_a_name_that_matches_nothing_is_an_empty_page_that_says_so(client, played) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("match-list"), {"bot": "nobody-of-that-name"})
    assert response.status_code == 200 and ids_on(response) == []
    assert "No bot is named nobody-of-that-name." in response.content.decode()
    response = client.get(reverse("match-list"), {"bot": "alices-bot", "version": 999})
    assert response.status_code == 200 and ids_on(response) == []
    assert "alices-bot has no version 999." in response.content.decode()


@pytest.mark.parametrize(
    "query",
    [
        {"status": "bogus"},
        {"players": "9"},
        {"players": "two"},
        {"ranked": "maybe"},
        {"ruleset": "chess"},
        {"origin": "x"},
        {"page": "0"},
        {"page": "-3"},
        {"page": "10000000000000000000000"},
        {"tournament": "99999999999999999999999"},
        {"version": "2"},  # a version number without its bot
        {"bot": "not a bot name!"},
        {"bot": "a\x00b"},
        {"bot": "x" * 41},
    ],
)
def test_bad_match_filters_are_a_clear_400(client, played, query) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("match-list"), query)
    assert response.status_code == 400
    html = response.content.decode()
    assert "These filters cannot be applied" in html
    assert 'role="alert"' in html


def test_the_match_list_pages_by_25_and_a_page_past_the_end_is_the_last(client, played) -> None:  # type: ignore[no-untyped-def]
    bulk_matches(30, [played["good"], played["other"]])
    total = Match.objects.count()  # 32
    url = reverse("match-list")
    first = client.get(url)
    assert len(ids_on(first)) == 25 and first.context["page"].paginator.count == total
    html = first.content.decode()
    assert 'rel="next"' in html and "page=2" in html
    second = client.get(url, {"page": 2})
    assert len(ids_on(second)) == total - 25
    assert set(ids_on(first)).isdisjoint(ids_on(second))
    assert ids_on(client.get(url, {"page": 99})) == ids_on(second)
    # The filters stay in the pager's links.
    filtered = client.get(url, {"bot": "carols-bot"}).content.decode()
    assert "bot=carols-bot&amp;page=2" in filtered


def test_the_match_list_costs_the_same_queries_for_1_row_as_for_25(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(bot__name="one"), version_factory(bot__name="two")]
    bulk_matches(1, versions)
    for url in (
        reverse("match-list"),
        reverse("match-list") + "?bot=one",
        reverse("match-list") + "?bot=one&version=1",
    ):
        few = queries(client, url)
        more = [version_factory(bot__name=f"more-{n}-{len(url)}") for n in range(4)]
        for n in range(0, 4, 2):
            bulk_matches(6, [versions[0], more[n]] if n else [more[n], versions[0]])
        many = queries(client, url)
        assert many <= few, (url, few, many)
    assert queries(client, reverse("match-list")) <= 5  # count, page, names (labels, users)


# --- /bots/ ------------------------------------------------------------------------------------


def test_the_bot_list_shows_owner_active_version_and_rating(client, played) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("bot-list"))
    assert response.status_code == 200
    bots = {bot["name"]: bot for bot in response.context["bots"]}
    assert list(bots) == sorted(bots)
    good = bots["alices-bot"]
    assert good["owner__username"] == "alice" and good["active_number"] == played["good"].number
    rating = Rating.objects.get(version=played["good"], ruleset="standard")
    assert good["rating"] == pytest.approx(rating.rating) and good["rated_games"] == rating.games
    html = response.content.decode()
    assert reverse("user-detail", args=["alice"]) in html
    assert reverse("match-list") + "?bot=alices-bot" in html


def test_the_bot_list_searches_names_and_filters_by_owner(client, played) -> None:  # type: ignore[no-untyped-def]
    names = lambda **query: [bot["name"] for bot in client.get(reverse("bot-list"), query).context["bots"]]  # noqa: E731
    assert names(search="BOB") == ["bobs-bot"]
    assert names(owner="alice") == ["alices-bot"]
    assert names(owner="nobody") == []
    assert client.get(reverse("bot-list"), {"search": "x" * 41}).status_code == 400
    assert client.get(reverse("bot-list"), {"page": "zero"}).status_code == 400


def test_the_bot_list_costs_the_same_queries_for_1_bot_as_for_20(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    version_factory(bot__name="first")
    few = queries(client, reverse("bot-list"))
    for n in range(20):
        version_factory(bot__name=f"bot-number-{n}")
    assert queries(client, reverse("bot-list")) == few


# --- /leaderboard/ -----------------------------------------------------------------------------


def test_the_leaderboard_shows_rating_interval_games_last_played_and_change(client, played) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("leaderboard"))
    assert response.status_code == 200 and response.context["ruleset"] == "standard"
    rows = response.context["rows"]
    ratings = {r.version_id: r for r in Rating.objects.filter(ruleset="standard", version__status="active")}
    assert [row["version"] for row in rows] == sorted(ratings, key=lambda pk: (-ratings[pk].rating, pk))
    assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
    good = next(row for row in rows if row["version"] == played["good"].pk)
    assert good["played"] == 4
    assert good["last_played"] == played["second"].finished_at
    change = sum(RatingEvent.objects.filter(version=played["good"]).values_list("delta", flat=True))
    assert good["recent_change"] == pytest.approx(change)
    html = response.content.decode()
    assert reverse("version-detail", args=["alices-bot", played["good"].number]) in html


def test_the_leaderboard_per_table_size_keeps_the_versions_that_played_at_it(client, played, version_factory) -> None:  # type: ignore[no-untyped-def]
    three = version_factory(bot__name="three-seater")
    Rating.objects.create(version=three, ruleset="standard", rules_version=RULES_VERSION, rating=1600, games=3)
    match = bulk_matches(1, [three, played["good"]], num_players=3, ranked=True)[0]
    assert match.num_players == 3
    at_two = {row["version"] for row in client.get(reverse("leaderboard"), {"players": 2}).context["rows"]}
    at_three = client.get(reverse("leaderboard"), {"players": 3}).context["rows"]
    assert three.pk not in at_two and played["good"].pk in at_two
    assert {row["version"] for row in at_three} == {three.pk, played["good"].pk}
    # At tables of 3 only that match's games count.
    assert {row["version"]: row["played"] for row in at_three} == {three.pk: 2, played["good"].pk: 2}
    assert client.get(reverse("leaderboard"), {"ruleset": "bga"}).context["rows"] == []


def test_the_leaderboard_orders_by_the_conservative_estimate(client, played) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("leaderboard"), {"order": "conservative"})
    assert response.status_code == 200 and response.context["order"] == "conservative"
    assert '<strong aria-current="page">conservative estimate</strong>' in response.content.decode()


@pytest.mark.parametrize("query", [{"ruleset": "chess"}, {"players": "1"}, {"order": "best"}, {"page": "x"}])
def test_bad_leaderboard_filters_are_a_clear_400(client, played, query) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("leaderboard"), query)
    assert response.status_code == 400 and "These filters cannot be applied" in response.content.decode()


def test_the_leaderboard_costs_the_same_queries_for_1_row_as_for_20(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    def rated(n: int) -> None:
        version = version_factory(bot__name=f"rated-{n}")
        Rating.objects.create(version=version, ruleset="standard", rules_version=RULES_VERSION, rating=1500 + n)

    rated(0)
    few = queries(client, reverse("leaderboard"))
    for n in range(1, 21):
        rated(n)
    assert queries(client, reverse("leaderboard")) == few <= 5


# --- A user's page -------------------------------------------------------------------------------


def test_a_user_s_page_shows_their_bots_and_recent_results(client, played) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("user-detail", args=["bob"]))
    assert response.status_code == 200
    assert [bot["name"] for bot in response.context["bots"]] == ["bobs-bot"]
    assert ids_on(response) == [played["first"].pk]
    alice = client.get(reverse("user-detail", args=["alice"]))
    assert ids_on(alice) == [played["second"].pk, played["first"].pk]
    assert client.get(reverse("user-detail", args=["nobody"])).status_code == 404
    assert client.get("/users/a%00b/").status_code == 404  # never reaches PostgreSQL
    assert client.get("/users/" + "a" * 151 + "/").status_code == 404


@pytest.mark.parametrize("query", [{"owner": "a\x00b"}, {"search": "a\x00b"}, {"requested_by": "a\x00b"}])
def test_a_nul_in_a_text_filter_is_a_400(client, db, query) -> None:  # type: ignore[no-untyped-def]
    url = reverse("match-list") if "requested_by" in query else reverse("bot-list")
    assert client.get(url, query).status_code == 400


# --- A bot's and a version's pages ----------------------------------------------------------------


def test_a_bot_s_page_links_its_full_history_its_owner_and_the_bot_list(client, played) -> None:  # type: ignore[no-untyped-def]
    html = client.get(reverse("bot-detail", args=["alices-bot"])).content.decode()
    assert f'href="{reverse("match-list")}?bot=alices-bot"' in html
    assert f'href="{reverse("user-detail", args=["alice"])}"' in html


def test_a_version_s_page_has_its_matches_plot_and_head_to_head(client, played, version_factory) -> None:  # type: ignore[no-untyped-def]
    good, other = played["good"], played["other"]
    # A second version of alice's bot, which lost its match against carols-bot: its record
    # against that opponent differs from the first version's.
    second = version_factory(bot=good.bot)
    bulk_matches(1, [other, second])
    response = client.get(reverse("version-detail", args=["alices-bot", second.number]))
    assert response.status_code == 200
    records = {record.opponent.name: record for record in response.context["head_to_head"]}
    assert list(records) == ["carols-bot"] and records["carols-bot"].games == 2
    assert records["carols-bot"].win_rate == 0.0
    first_records = {
        record.opponent.name: record
        for record in client.get(reverse("version-detail", args=["alices-bot", good.number])).context["head_to_head"]
    }
    assert set(first_records) == {"bobs-bot", "carols-bot"}
    assert first_records["carols-bot"].games == 2
    html = client.get(reverse("version-detail", args=["alices-bot", good.number])).content.decode()
    assert f"{reverse('match-list')}?bot=alices-bot&amp;version={good.number}" in html
    assert "<svg" in html and 'id="version-head-to-head"' in html  # the rating plot and the table


def test_only_the_owner_sees_and_can_use_the_source_download(client, played, alice, bob) -> None:  # type: ignore[no-untyped-def]
    url = reverse("version-detail", args=["alices-bot", played["good"].number])
    source = reverse("api-version-source", args=[played["good"].pk])
    assert source not in client.get(url).content.decode()
    client.force_login(bob)
    assert source not in client.get(url).content.decode()
    assert client.get(source).status_code in (403, 404)
    client.force_login(alice)
    assert source in client.get(url).content.decode()
    download = client.get(source)
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == version_code(played["good"])


# --- Breadcrumbs ----------------------------------------------------------------------------------


def test_the_breadcrumbs_link_where_they_say(client, played) -> None:  # type: ignore[no-untyped-def]
    pages = [
        reverse("bot-detail", args=["alices-bot"]),
        reverse("version-detail", args=["alices-bot", played["good"].number]),
        reverse("match-detail", args=[played["first"].pk]),
        reverse("match-list") + f"?bot=alices-bot&version={played['good'].number}",
        reverse("match-list") + "?bot=alices-bot&version=999",
        reverse("match-list") + "?bot=no-such-bot",
        reverse("user-detail", args=["alice"]),
    ]
    linked = set()
    for page in pages:
        html = client.get(page).content.decode()
        crumb = re.search(r'<nav aria-label="Breadcrumb" class="breadcrumb">(.*?)</nav>', html, re.S)
        assert crumb, page
        for href in re.findall(r'href="([^"]+)"', crumb.group(1)):
            linked.add(href)
            assert client.get(href).status_code == 200, (page, href)
    assert {reverse("bot-list"), reverse("match-list")} <= linked


def test_the_header_links_the_browsing_pages(client, db) -> None:  # type: ignore[no-untyped-def]
    html = client.get(reverse("home")).content.decode()
    nav = re.search(r'<nav class="nav" aria-label="Main">(.*?)</nav>', html, re.S)
    assert nav
    for name in ("leaderboard", "match-list", "bot-list"):
        assert f'href="{reverse(name)}"' in nav.group(1)


# --- Password reset -------------------------------------------------------------------------------


def test_a_password_is_reset_by_the_link_sent_by_email(client, alice) -> None:  # type: ignore[no-untyped-def]
    alice.set_password("old password 1")
    alice.save()
    assert reverse("password-reset") in client.get(reverse("login")).content.decode()
    response = client.post(reverse("password-reset"), {"email": "alice@example.org"})
    assert response.status_code == 302 and response["Location"] == reverse("password-reset-done")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["alice@example.org"]
    link = re.search(r"https?://[^/\s]+(/accounts/password-reset/\S+/)", mail.outbox[0].body)
    assert link, mail.outbox[0].body
    form = client.get(link.group(1), follow=True)
    assert form.status_code == 200 and "Choose a new password" in form.content.decode()
    new = {"new_password1": "a fresh long passphrase", "new_password2": "a fresh long passphrase"}
    done = client.post(form.redirect_chain[-1][0], new)
    assert done.status_code == 302 and done["Location"] == reverse("password-reset-complete")
    alice.refresh_from_db()
    assert alice.check_password("a fresh long passphrase")
    # The link works once.
    again = client.get(link.group(1), follow=True)
    assert "This link no longer works" in again.content.decode()


def test_a_reset_for_an_unknown_address_sends_nothing_and_says_the_same(client, alice) -> None:  # type: ignore[no-untyped-def]
    response = client.post(reverse("password-reset"), {"email": "nobody@example.org"})
    assert response.status_code == 302 and response["Location"] == reverse("password-reset-done")
    assert mail.outbox == []


# --- The home page --------------------------------------------------------------------------------


def test_the_home_page_shows_queued_matches_apart_and_marks_winners(client, played) -> None:  # type: ignore[no-untyped-def]
    queued = match_schedule(versions=[played["good"], played["other"]], games=2, ranked=False, seed=3)
    response = client.get(reverse("home"))
    assert [row["id"] for row in response.context["pending_matches"]] == [queued.pk]
    assert queued.pk not in [row["id"] for row in response.context["recent_matches"]]
    assert [row["id"] for row in response.context["recent_matches"]] == [played["second"].pk, played["first"].pk]
    html = response.content.decode()
    results = html[html.index('id="recent-matches"') : html.index('id="queued-matches"')]
    assert results.count("winner: </span>") == 2
    assert reverse("match-detail", args=[queued.pk]) in html[html.index('id="queued-matches"') :]
    match_execute(match_id=queued.pk, worker="test")
    after = client.get(reverse("home")).context
    assert after["pending_matches"] == [] and after["recent_matches"][0]["id"] == queued.pk


def test_a_ruleset_without_rated_versions_gets_a_line_not_a_board(client, played) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("home"))
    assert [ruleset for ruleset, _ in response.context["leaderboards"]] == ["standard"]
    assert response.context["unrated_rulesets"] == ["bga"]
    html = response.content.decode()
    assert 'id="leaderboard-bga"' not in html and 'id="unrated-rulesets"' in html


def test_a_tied_match_has_no_winner(client, version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(bot__name="tie-a"), version_factory(bot__name="tie-b")]
    match = bulk_matches(1, versions)[0]
    summary = [entry | {"mean_rank": 1.5} for entry in match.entrant_summary]
    Match.objects.filter(pk=match.pk).update(entrant_summary=summary)
    row = client.get(reverse("match-list")).context["matches"][0]
    assert [entrant["winner"] for entrant in row["entrants"]] == [False, False]
