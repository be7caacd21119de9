"""Fair play on the platform: no bot process meets a deal twice on any of the platform's paths
(validation, a match in chunks, placement, SPRT, tournaments: every match runs through
match_execute), no deck is known before its match is scheduled, and a bot cannot tell its
validation from a ladder match. The memory bot (tests/fair_play/memory_bot.py) fails loudly when
a deal comes back to its process; on PostgreSQL, with the real sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import override_settings

from bots.models import BotVersion
from bots.services import bot_version_validate, builtin_bots_register, validation_match
from lineit.botkit.limits import Limits
from tournaments.models import GameFailure, Match, MatchChunk
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule

pytestmark = pytest.mark.django_db

MEMORY_BOT = (Path(__file__).resolve().parent.parent / "fair_play" / "memory_bot.py").read_bytes()
QUICK = Limits(move_seconds=0.05, bank_seconds=1, move_timeout_seconds=0.5, startup_seconds=5)


def test_a_match_in_chunks_never_shows_a_process_a_deal_twice(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory(code=MEMORY_BOT) for _ in range(3)]
    with override_settings(MATCH_CHUNK_GAMES=6):
        match = match_schedule(versions=versions, games=12, limits=QUICK, ranked=True)
        match_execute(match_id=match.pk, worker="fair-play")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.games_played == 12
    assert MatchChunk.objects.filter(match=match).count() == 2
    assert list(GameFailure.objects.filter(match=match).values_list("message", flat=True)) == []


def test_validation_passes_the_memory_bot_and_looks_like_a_ladder_match(version_factory) -> None:  # type: ignore[no-untyped-def]
    builtin_bots_register(names=("random", "greedy"))
    version = version_factory(code=MEMORY_BOT, status=BotVersion.Status.VALIDATING)

    assert bot_version_validate(version_id=version.pk).status == BotVersion.Status.ACTIVE

    seeds, seats, opponents = set(), set(), set()
    for _ in range(40):
        spec, entrants = validation_match(version)
        seeds.add(spec.seed)
        seats.add(entrants.index(version))
        (opponent,) = [entrant for entrant in entrants if entrant != version]
        opponents.add(opponent.bot.name)
        # what the bot sees (info: games, num_players, names) is a two-seat ladder match's
        assert spec.num_players == 2 and spec.duplicate_deals and spec.rotate_seats
        assert spec.games == 2 * 2 and spec.shard == range(2)  # LADDER_DEALS_PER_MATCH, BOT_VALIDATION_GAMES
        assert opponent.bot.is_builtin
    assert len(seeds) == 40  # drawn from the system: no deck to compute
    assert seats == {0, 1} and opponents == {"random", "greedy"}


def test_tournament_matches_deal_from_seeds_drawn_when_scheduled(version_factory) -> None:  # type: ignore[no-untyped-def]
    """The pairing's seed is a function of the tournament's seed, which the API shows while the
    tournament is open: a bot entered later could compute its decks. The match's seed is drawn
    when it is scheduled instead (tests/tournaments/test_tournament_services.py plays them)."""
    from django.utils import timezone

    from tournaments.services.tournaments.creation import tournament_create
    from tournaments.services.tournaments.running import tournament_start

    versions = [version_factory(code=MEMORY_BOT) for _ in range(2)]
    tournament = tournament_create(
        name="seeds", format="round-robin", starts_at=timezone.now(), games_per_pairing=4, versions=versions, seed=7
    )
    tournament_start(tournament_id=tournament.pk)
    again = tournament_create(
        name="seeds again",
        format="round-robin",
        starts_at=timezone.now(),
        games_per_pairing=4,
        versions=versions,
        seed=7,
    )
    tournament_start(tournament_id=again.pk)
    first, second = (Match.objects.get(tournament=t) for t in (tournament, again))
    assert first.seed != second.seed  # the same tournament seed, the same pairing: other decks
    match_execute(match_id=first.pk, worker="fair-play")
    first.refresh_from_db()
    assert first.status == Match.Status.FINISHED and first.failure_count == 0


def test_placement_and_sprt_matches_never_show_a_process_a_deal_twice(version_factory) -> None:  # type: ignore[no-untyped-def]
    """A new version's placement match (scheduled by the ladder tick) and a batch of its SPRT
    against the previous version, played as a worker plays them."""
    import random

    from django.utils import timezone

    from tournaments.services.ladder import ladder_tick
    from tournaments.services.sprt import sprt_start

    old = version_factory(code=MEMORY_BOT)
    others = [version_factory(code=MEMORY_BOT) for _ in range(3)]
    new = version_factory(code=MEMORY_BOT, bot=old.bot, placement_started_at=timezone.now())
    assert others
    with override_settings(PLACEMENT_MAX_MATCHES=1, LADDER_TABLE_SIZES=[3]):
        scheduled = ladder_tick(rng=random.Random(1))
    placement = next(match for match in scheduled if match.origin == Match.Origin.PLACEMENT)
    test = sprt_start(new_version=new, old_version=old, batch_games=6, max_games=6)
    batch = test.current_match
    assert batch is not None and batch.origin == Match.Origin.SPRT
    for match in (placement, batch):
        match_execute(match_id=match.pk, worker="fair-play")
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED and match.failure_count == 0, match
