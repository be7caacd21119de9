"""A match the platform could not let finish is refused when it is made: its bots, using every
second their limits give them, must fit the match task's time limit; and a system check says
when one game of the default limits could outlast the lease."""

from __future__ import annotations

import pytest
from django.core.checks import Error, Warning
from django.test import override_settings

from lineit.botkit.limits import Limits
from lineit.botkit.schedule import longest_seconds, most_decisions
from lineit_platform.checks import check_platform_settings
from lineit_platform.errors import ApplicationError
from tournaments.models import Match, Tournament
from tournaments.services.matches.states import match_schedule
from tournaments.services.tournaments.creation import tournament_create


def test_the_longest_a_match_can_last_by_hand() -> None:
    limits = Limits(move_seconds=0.5, bank_seconds=30, move_timeout_seconds=5, startup_seconds=10, max_failures=3)

    # two players: 26 rounds of take, play and close, and three final decisions each
    assert most_decisions(2) == 81 and most_decisions(2, games=4) == 324
    # each bot: 81 x 0.5 s + its 30 s bank (less than 81 x 5 s), and three calls of 10 s
    assert longest_seconds(2, 1, limits) == 2 * (81 * 0.5 + 30 + 3 * 10)
    # over 10 games: two calls a game, a start of its process for each of its 2 lanes (one per seat
    # rotation) and one after each of at most max_failures failed games
    assert longest_seconds(2, 10, limits) == 2 * (810 * 0.5 + 30 + (20 + 2 + 3) * 10)
    # a per-move cap below the allowance binds instead
    capped = Limits(move_seconds=0.1, bank_seconds=1000, move_timeout_seconds=0.2, startup_seconds=1)
    assert longest_seconds(2, 1, capped) == 2 * (81 * 0.2 + 3 * 1)


@pytest.mark.django_db
def test_a_match_longer_than_a_match_may_last_is_refused_and_nothing_is_made(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(), version_factory()]

    with override_settings(MATCH_TIME_LIMIT_SECONDS=1830, MATCH_SOFT_MARGIN_SECONDS=30):
        match_schedule(versions=versions, games=12, seed=1)  # 2 x (972 x 0.5 + 30 + 29 x 10) s: 1612 s
        with pytest.raises(ApplicationError, match=r"14 games of 2 bots may take up to 1854 s .* \(1800 s\)"):
            match_schedule(versions=versions, games=14, seed=1)

    assert Match.objects.count() == 1


@pytest.mark.django_db
def test_a_tournament_whose_matches_could_not_finish_is_refused(version_factory) -> None:  # type: ignore[no-untyped-def]
    from django.utils import timezone

    versions = [version_factory(), version_factory(), version_factory()]

    with pytest.raises(ApplicationError, match="1000 games of 2 bots may take up to"):
        tournament_create(
            name="marathon",
            format="round_robin",
            starts_at=timezone.now(),
            table_size=3,
            games_per_pairing=1000,
            versions=versions,
        )

    assert Tournament.objects.count() == 0


def test_the_system_check_says_when_the_ladder_the_api_cap_or_a_game_cannot_fit() -> None:
    ours = ("lineit.E008", "lineit.W004", "lineit.W005")
    assert [p.id for p in check_platform_settings() if p.id in ours] == []

    with override_settings(MATCH_TIME_LIMIT_SECONDS=600, LADDER_DEALS_PER_MATCH=10, MATCH_LEASE_SECONDS=300):
        problems = {p.id: p for p in check_platform_settings() if p.id in ours}

    assert isinstance(problems["lineit.E008"], Error) and "every ladder match of" in problems["lineit.E008"].msg
    assert isinstance(problems["lineit.W004"], Warning) and "API_MATCH_MAX_GAMES" in problems["lineit.W004"].msg
    assert isinstance(problems["lineit.W005"], Warning) and "(420 s)" in problems["lineit.W005"].msg
