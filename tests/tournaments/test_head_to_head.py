"""One head-to-head reader (tournaments/selectors/matches.py: head_to_head) for a bot and for one
of its versions, which the bot's page, the API's head-to-head and the version's page all call.

The story, written as rows: alice's bot has two versions, v1 and v2; bob's bot one. A finished
match seats v1, v2 and bob for two games; another seats v1 twice beside bob for one game, all
tied; a failed match of v1 against bob counts for nobody. Every figure below is counted by hand."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.models import Game, Match, MatchEntrant, compress_replay
from tournaments.selectors.matches import HeadToHead, head_to_head

pytestmark = pytest.mark.django_db


def played(versions: list[Any], games: list[tuple[list[int], list[int], list[int]]], status: str = "finished") -> None:
    """A match of these entrants (index i is versions[i]) and its games: (seats, scores, ranks),
    seat by seat, each game its own deal."""
    match = Match.objects.create(
        ruleset="standard", rules_version="1.0", num_players=len(versions), games=len(games), seed=0, status=status
    )
    MatchEntrant.objects.bulk_create(
        MatchEntrant(match=match, index=index, version=version) for index, version in enumerate(versions)
    )
    Game.objects.bulk_create(
        Game(
            match=match,
            index=index,
            deal=index,
            deck_seed=index,
            seats=seats,
            scores=scores,
            ranks=ranks,
            replay=compress_replay({}),
        )
        for index, (seats, scores, ranks) in enumerate(games)
    )


@pytest.fixture
def story(alice: Any, bob: Any, version_factory: Any) -> dict[str, Any]:
    v1 = version_factory(bot__owner=alice, bot__name="alices-bot")
    v2 = version_factory(bot=v1.bot)
    theirs = version_factory(bot__owner=bob, bot__name="bobs-bot")
    played(
        [v1, v2, theirs],
        [
            ([0, 1, 2], [10, 5, 3], [1, 2, 3]),  # v1, v2, bob in seats 0, 1, 2
            ([2, 0, 1], [7, 4, 9], [2, 3, 1]),  # bob, v1, v2
        ],
    )
    played([v1, v1, theirs], [([0, 1, 2], [6, 8, 6], [1, 1, 1])])  # a three-way tie
    played([v1, theirs], [([0, 1], [1, 0], [1, 2])], status="failed")
    return {"v1": v1, "v2": v2, "bob": theirs}


def figures(records: list[HeadToHead]) -> list[tuple[str, int, float, int]]:
    return [(record.opponent.name, record.games, record.wins, record.score_difference) for record in records]


def test_a_bot_meets_other_bots_only_its_own_versions_are_itself(story: dict[str, Any]) -> None:
    # Each game compares bob with alice's first seat only: 10-3 won, 4-7 lost, 6-6 tied.
    assert figures(head_to_head(story["v1"].bot)) == [("bobs-bot", 3, 1.5, 4)]


def test_bob_meets_each_seat_of_alices_bot(story: dict[str, Any]) -> None:
    # Two seats of alice's bot in every game: -7 and -2 lost, 3 won and -2 lost, 0 and -2 tied.
    assert figures(head_to_head(story["bob"].bot)) == [("alices-bot", 6, 2.0, -10)]


def test_a_version_meets_the_other_versions_of_its_bot_as_its_bot(story: dict[str, Any]) -> None:
    # v1 against bob: 7 won, -3 lost, 0 tied (its second seat in the tie is itself); against
    # v2, alice's bot: 5 won, -5 lost.
    assert figures(head_to_head(story["v1"])) == [("bobs-bot", 3, 1.5, 4), ("alices-bot", 2, 1.0, 0)]
    # v2 against v1: -5 lost, 5 won; against bob: 2 and 2, both won. As many games: by name.
    assert figures(head_to_head(story["v2"])) == [("alices-bot", 2, 1.0, 0), ("bobs-bot", 2, 2.0, 4)]


def test_the_interval_counts_deals_and_the_rate_is_the_share_won(story: dict[str, Any]) -> None:
    record = head_to_head(story["v1"].bot)[0]
    assert record.win_rate == 0.5 and record.mean_score_difference == pytest.approx(4 / 3)
    assert len(record.deals) == 3  # three deals of one game each
    low, high = record.interval
    assert 0 <= low < 0.5 < high <= 1


def test_max_games_reads_the_newest_games_first(story: dict[str, Any]) -> None:
    # The newest finished match is the tie: its one game, then the first game of the first match.
    assert figures(head_to_head(story["v1"].bot, max_games=1)) == [("bobs-bot", 1, 0.5, 0)]
    assert figures(head_to_head(story["v1"], max_games=2)) == [("bobs-bot", 2, 1.5, 7), ("alices-bot", 1, 1.0, 5)]


def test_without_finished_matches_there_is_no_record(version_factory: Any) -> None:
    lonely = version_factory()
    assert head_to_head(lonely) == [] and head_to_head(lonely.bot) == []
