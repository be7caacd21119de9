"""Tournaments through their services, matches played in this process: every format runs to its
final standings, every step can run twice, failed matches and failing bots do not stop a
tournament, open sign-up freezes versions at the start, recurring tournaments make one per slot."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from django_celery_beat.models import PeriodicTask
from tournament_helpers import CRASHING_BOT, play_in_process, play_out, play_round, soon

from bots.models import BotVersion
from bots.services import bot_version_retire
from lineit import formats
from lineit.engine import RULES_VERSION
from lineit_platform.errors import ApplicationError, Conflict, Forbidden
from tournaments.models import Match, Rating, RecurringTournament, Tournament, TournamentEntry
from tournaments.selectors.tournaments import tournament_bracket, tournament_rounds, tournament_standings
from tournaments.services.matches.states import match_claim, match_release
from tournaments.services.tournaments.creation import tournament_create, tournament_sign_up
from tournaments.services.tournaments.recurring import recurring_tournament_run, recurring_tournament_save
from tournaments.services.tournaments.running import (
    tournament_advance,
    tournament_cancel,
    tournament_start,
    tournaments_tick,
)

pytestmark = pytest.mark.django_db


def create(versions: list[BotVersion], format: str = "round-robin", **extra: Any) -> Tournament:
    fields: dict[str, Any] = {"name": f"test {format}", "format": format, "starts_at": soon(), "games_per_pairing": 2}
    return tournament_create(versions=versions, **(fields | extra))


@pytest.mark.parametrize(
    ("format", "entrants", "table_size", "matches"),
    [
        ("round-robin", 4, 2, 6),  # 3 rounds of 2
        ("swiss", 5, 2, 6),  # 3 rounds of 2, one bye each round
        ("single", 5, 2, 4),  # 1 play-in, 2 semi-finals, the final
        ("single", 6, 3, 4),  # 3 tables of 2 (empty seats) feed a final table of 3
        ("double", 4, 2, None),  # 6, or 7 with the reset
    ],
)
def test_every_format_runs_to_its_final_standings(version_factory, format, entrants, table_size, matches) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(entrants)]
    options = {"rounds": 3} if format == "swiss" else {}
    tournament = create(versions, format, table_size=table_size, options=options)
    tournament = tournament_start(tournament_id=tournament.pk, force=True)
    assert tournament.status == "running" and tournament.round_number >= 1
    tournament = play_out(tournament)

    assert tournament.status == "finished" and tournament.finished_at is not None
    state = formats.TournamentState.from_dict(tournament.state)
    assert formats.is_finished(state)
    played = Match.objects.filter(tournament=tournament)
    assert set(played.values_list("status", flat=True)) == {"finished"}
    pairings = [p for r in state.rounds for p in r.pairings if not p.bye]
    assert played.count() == len(pairings)
    if matches is not None:
        assert played.count() == matches
    else:
        assert played.count() in (6, 7)
    final = tournament_standings(tournament)[-1]
    assert final["round"] == len(state.rounds)
    assert sorted(row["entrant"] for row in final["rows"]) == sorted(v.pk for v in versions)
    assert final["rows"][0]["place"] == 1
    # Each match plays its pairing: the versions in seat order, and a seed of its own drawn when it
    # was scheduled (not the pairing's, which anyone reading the tournament could compute).
    for match in played.prefetch_related("entrants"):
        pairing = next(p for p in pairings if (p.round, p.table) == (match.tournament_round, match.tournament_table))
        assert [e.version_id for e in match.entrants.order_by("index")] == list(pairing.entrants)
        assert match.seed != pairing.match_seed and match.games == 2 and match.origin == "tournament"


def test_entrants_are_seeded_by_their_rating_in_the_tournaments_ruleset(version_factory) -> None:  # type: ignore[no-untyped-def]
    low, high, unrated, other_ruleset = (version_factory() for _ in range(4))
    for version, rating, ruleset in ((low, 1400, "standard"), (high, 1700, "standard"), (other_ruleset, 2000, "bga")):
        Rating.objects.create(version=version, ruleset=ruleset, rules_version=RULES_VERSION, rating=rating)
    tournament = create([low, unrated, other_ruleset, high], "single")
    tournament_start(tournament_id=tournament.pk, force=True)
    seeds = dict(TournamentEntry.objects.filter(tournament=tournament).values_list("version_id", "seed"))
    assert seeds[high.pk] == 1 and seeds[low.pk] == 2
    assert {seeds[unrated.pk], seeds[other_ruleset.pk]} == {3, 4}  # unrated here: last, order drawn


def test_every_step_can_run_twice_and_changes_nothing_the_second_time(version_factory) -> None:  # type: ignore[no-untyped-def]
    tournament = create([version_factory() for _ in range(4)], "swiss", options={"rounds": 2})
    first = tournament_start(tournament_id=tournament.pk, force=True)
    again = tournament_start(tournament_id=tournament.pk, force=True)
    assert first.state == again.state and Match.objects.filter(tournament=tournament).count() == 2

    assert tournament_advance(tournament_id=tournament.pk).round_number == 1  # round 1 still playing
    one = Match.objects.filter(tournament=tournament).first()
    play_in_process(one)
    assert tournament_advance(tournament_id=tournament.pk).round_number == 1  # one match left
    round_two = play_round(tournament)
    assert round_two.round_number == 2
    assert tournament_advance(tournament_id=tournament.pk).state == round_two.state
    assert Match.objects.filter(tournament=tournament).count() == 4
    finished = play_out(round_two)
    assert tournament_advance(tournament_id=tournament.pk).state == finished.state
    assert tournaments_tick()["advanced"] == 0


def test_a_failed_match_counts_as_a_tie_and_the_tournament_goes_on(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(4)]
    tournament = tournament_start(tournament_id=create(versions, "single").pk, force=True)
    doomed, other = Match.objects.filter(tournament=tournament).order_by("tournament_table")
    Match.objects.filter(pk=doomed.pk).update(max_attempts=1)
    claimed = match_claim(match_id=doomed.pk, worker="tests")
    assert match_release(match_id=doomed.pk, attempt=claimed.attempts, error="the sandbox vanished").status == "failed"
    play_in_process(other)
    tournament = tournament_advance(tournament_id=tournament.pk)

    first_round = tournament_rounds(tournament)[0]["tables"][0]
    assert [r["place"] for r in first_round["result"]] == [1, 1]
    assert [r["points"] for r in first_round["result"]] == [0.5, 0.5]
    assert first_round["match"]["status"] == "failed"
    state = formats.TournamentState.from_dict(tournament.state)
    seeds = state.seeds
    better_seed = min(doomed.entrants.values_list("version_id", flat=True), key=seeds.__getitem__)
    assert better_seed in state.pending.pairings[0].entrants  # the tie rule: the better seed goes on
    assert play_out(tournament).status == "finished"


def test_a_bot_that_fails_every_game_finishes_last(version_factory) -> None:  # type: ignore[no-untyped-def]
    crashing = version_factory(code=CRASHING_BOT)
    versions = [version_factory(), version_factory(), crashing]
    tournament = play_out(tournament_start(tournament_id=create(versions).pk, force=True))
    final = tournament_standings(tournament)[-1]["rows"]
    assert final[-1]["entrant"] == crashing.pk and final[-1]["points"] == 0.0
    assert Match.objects.filter(tournament=tournament, failures__version=crashing).exists()


def test_open_sign_up_freezes_the_newest_version_at_the_start(alice, bob, version_factory) -> None:  # type: ignore[no-untyped-def]
    old = version_factory(bot__owner=alice)
    bobs = version_factory(bot__owner=bob)
    carols = version_factory()
    tournament = tournament_create(
        name="open", format="round-robin", starts_at=soon(), participation="open", games_per_pairing=2
    )
    assert tournament.status == "open" and tournament.signup_deadline == tournament.starts_at
    tournament_sign_up(tournament=tournament, bot=old.bot, user=alice)
    tournament_sign_up(tournament=tournament, bot=bobs.bot, user=bob, version=bobs)
    with pytest.raises(Forbidden):
        tournament_sign_up(tournament=tournament, bot=carols.bot, user=alice)
    with pytest.raises(Conflict):
        tournament_sign_up(tournament=tournament, bot=old.bot, user=alice)
    newer = version_factory(bot=old.bot, number=old.number + 1)
    tournament_sign_up(tournament=tournament, bot=carols.bot, user=carols.bot.owner)
    bot_version_retire(version=carols)  # carol's bot has no active version left at the start

    tournament = tournament_start(tournament_id=tournament.pk, now=tournament.starts_at)
    assert tournament.status == "running"
    entries = {entry.bot_id: entry for entry in tournament.entries.all()}
    assert entries[old.bot_id].version_id == newer.pk and entries[old.bot_id].frozen
    assert entries[bobs.bot_id].version_id == bobs.pk
    assert not entries[carols.bot_id].frozen and "no active version" in entries[carols.bot_id].dropped
    with pytest.raises(Conflict):
        tournament_sign_up(tournament=tournament, bot=carols.bot, user=carols.bot.owner)


def test_sign_up_closes_at_its_deadline(alice, version_factory) -> None:  # type: ignore[no-untyped-def]
    version = version_factory(bot__owner=alice)
    tournament = tournament_create(
        name="closed", format="swiss", starts_at=soon(10), signup_deadline=timezone.now(), participation="open"
    )
    with pytest.raises(Conflict, match="not open"):
        tournament_sign_up(tournament=tournament, bot=version.bot, user=alice)


def test_too_few_entrants_cancel_the_tournament_with_the_reason(version_factory) -> None:  # type: ignore[no-untyped-def]
    tournament = tournament_create(name="lonely", format="swiss", starts_at=timezone.now(), participation="open")
    tournament = tournament_start(tournament_id=tournament.pk)
    assert tournament.status == "cancelled" and "0 entrants" in tournament.note


def test_bad_settings_are_refused_and_change_nothing(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(3)]
    with pytest.raises(ApplicationError, match="2 to 5 seats"):
        create(versions, "double", table_size=6)
    with pytest.raises(ApplicationError, match="unknown format"):
        create(versions, "league")
    with pytest.raises(ApplicationError, match="unknown options"):
        create(versions, options={"roundz": 2})
    with pytest.raises(ApplicationError, match="rounds"):
        create(versions, "swiss", options={"rounds": 9})
    with pytest.raises(ApplicationError, match="only once"):
        create([versions[0], versions[0]])
    assert not Tournament.objects.exists() and not PeriodicTask.objects.exists()


@pytest.mark.parametrize(
    ("format", "options", "why"),
    [
        ("round-robin", {"rounds": -1}, "rounds is an option of swiss tournaments, not of round-robin"),
        ("round-robin", {"rounds": 10**30}, "rounds is an option of swiss"),
        ("swiss", {"cycles": 2}, "cycles is an option of round-robin tournaments, not of swiss"),
        ("single", {"grand_final_reset": False}, "grand_final_reset is an option of double tournaments"),
        ("round-robin", {"advance": 1}, "advance is an option of single and double tournaments"),
        ("round-robin", {"cycles": [1]}, "cycles must be a whole number, not [1]"),
        ("round-robin", {"cycles": "2"}, "cycles must be a whole number, not '2'"),
        ("round-robin", {"cycles": True}, "cycles must be a whole number, not True"),
        ("swiss", {"rounds": 2.5}, "rounds must be a whole number, not 2.5"),
        ("double", {"grand_final_reset": "maybe"}, "grand_final_reset must be true or false, not 'maybe'"),
        ("double", {"advance": {"n": 1}}, "advance must be a whole number"),
    ],
)
def test_an_option_its_format_does_not_read_or_of_the_wrong_type_is_refused(  # type: ignore[no-untyped-def]
    version_factory, format: str, options: dict[str, Any], why: str
) -> None:
    # Kept unread (a round robin's rounds: -1), taken for true ("maybe"), or answered with
    # Python's words about comparing a list with an int: each is now a clear refusal.
    versions = [version_factory() for _ in range(4)]
    with pytest.raises(ApplicationError) as refused:
        create(versions, format, options=options)
    assert why in refused.value.message
    with pytest.raises(ApplicationError) as refused_again:
        recurring_tournament_save(
            name="weekly", format=format, options=options, participation="open",
            every=timedelta(days=7), next_run_at=soon(),
        )  # fmt: skip
    assert why in refused_again.value.message
    assert not Tournament.objects.exists() and not RecurringTournament.objects.exists()


def test_the_options_each_format_reads_pass(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(4)]
    create(versions, "round-robin", options={"cycles": 2})
    create(versions, "swiss", options={"rounds": 2})
    create(versions, "single", options={"advance": 1})
    create(versions, "double", options={"advance": None, "grand_final_reset": False})
    assert Tournament.objects.count() == 4


def test_it_starts_at_its_time_by_a_one_off_beat_task_or_the_tick(version_factory) -> None:  # type: ignore[no-untyped-def]
    tournament = create([version_factory() for _ in range(3)])
    task = PeriodicTask.objects.get(pk=tournament.start_task_id)
    assert task.one_off and task.enabled and task.clocked.clocked_time == tournament.starts_at
    assert task.task == "tournaments.tasks.tournament_start_task" and task.args == f"[{tournament.pk}]"
    assert tournament_start(tournament_id=tournament.pk).status == "scheduled"  # not yet
    assert tournaments_tick()["started"] == 0
    assert tournaments_tick(now=tournament.starts_at)["started"] == 1
    tournament.refresh_from_db()
    task.refresh_from_db()
    assert tournament.status == "running" and not task.enabled


def test_cancelling_a_running_tournament_cancels_its_pending_matches(version_factory) -> None:  # type: ignore[no-untyped-def]
    tournament = tournament_start(tournament_id=create([version_factory() for _ in range(4)]).pk, force=True)
    tournament = tournament_cancel(tournament=tournament, note="the venue flooded")
    assert tournament.status == "cancelled" and tournament.note == "the venue flooded"
    assert set(Match.objects.filter(tournament=tournament).values_list("status", flat=True)) == {"cancelled"}
    assert tournament_advance(tournament_id=tournament.pk).status == "cancelled"
    with pytest.raises(Conflict):
        tournament_cancel(tournament=tournament)


def test_a_version_retired_during_the_tournament_plays_on_unranked(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(3)]
    tournament = tournament_start(tournament_id=create(versions, ranked=True).pk, force=True)
    assert set(Match.objects.filter(tournament=tournament).values_list("ranked", flat=True)) == {True}
    bot_version_retire(version=versions[0])
    tournament = play_out(tournament)
    with_retired = Match.objects.filter(tournament=tournament, entrants__version=versions[0])
    assert tournament.status == "finished"
    assert list(with_retired.order_by("id").values_list("ranked", flat=True))[-1] is False


def test_a_recurring_tournament_makes_one_tournament_per_slot(version_factory) -> None:  # type: ignore[no-untyped-def]
    versions = [version_factory() for _ in range(4)]
    monday = timezone.now().replace(microsecond=0) - timedelta(days=15)
    weekly = recurring_tournament_save(
        name="weekly swiss",
        format="swiss",
        participation="all-active",
        games_per_pairing=2,
        every=timedelta(days=7),
        next_run_at=monday,
    )
    now = timezone.now()
    made = recurring_tournament_run(recurring_id=weekly.pk, now=now)
    assert made is not None and made.recurring == weekly and made.occurrence == monday
    assert recurring_tournament_run(recurring_id=weekly.pk, now=now) is None  # the slot is done
    weekly.refresh_from_db()
    assert weekly.next_run_at == monday + timedelta(days=21)  # two missed slots skipped, not made up
    assert tournaments_tick(now=now)["created"] == 0

    started = tournament_start(tournament_id=made.pk, now=made.starts_at)
    assert sorted(started.entries.values_list("version_id", flat=True)) == sorted(v.pk for v in versions)
    with pytest.raises(ApplicationError, match="every active version or open sign-up"):
        recurring_tournament_save(recurring=weekly, participation="chosen")


def test_bracket_and_rounds_link_every_match_and_its_games(version_factory) -> None:  # type: ignore[no-untyped-def]
    tournament = play_out(
        tournament_start(tournament_id=create([version_factory() for _ in range(5)], "single").pk, force=True)
    )
    bracket = tournament_bracket(tournament)
    assert bracket is not None and bracket["champion"] == tournament_standings(tournament)[-1]["rows"][0]["entrant"]
    played = [m for m in bracket["matches"] if m["status"] == "played"]
    assert {m["match"]["id"] for m in played} == set(
        Match.objects.filter(tournament=tournament).values_list("id", flat=True)
    )
    for match in played:
        assert len(match["match"]["games"]) == 2
    byes = [m for m in bracket["matches"] if m["status"] == "bye"]
    assert byes and all(m["match"] is None for m in byes)
    assert len(tournament_standings(tournament)) == tournament.round_number
