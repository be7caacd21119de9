"""The recompute at any size: streamed a chunk at a time, folded in numpy, compared with the event
log by fingerprint. It must find every difference the log can have, and read the same results
through PostgreSQL's packed rows as through the ORM."""

from __future__ import annotations

import math
import random

import pytest
from tournament_helpers import live_table, play

from tournaments.models import Rating, RatingEvent
from tournaments.selectors import results
from tournaments.services import ratings_recompute as recompute_module
from tournaments.services.matches.results import match_record_result
from tournaments.services.matches.states import match_schedule
from tournaments.services.ratings_recompute import ratings_recompute

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(version_factory):  # type: ignore[no-untyped-def]
    """Eight ranked matches of 2 to 4 of five versions, recorded in a shuffled order."""
    versions = [version_factory() for _ in range(5)]
    rng = random.Random(11)
    matches = [
        match_schedule(versions=rng.sample(versions, rng.randint(2, 4)), games=3, ranked=True, seed=i) for i in range(8)
    ]
    results = [(match, play(match)) for match in matches]
    rng.shuffle(results)
    for match, result in results:
        match_record_result(match_id=match.pk, attempt=1, result=result)
    return matches


def test_small_chunks_and_the_orm_reads_reproduce_the_live_table(history, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    whole = ratings_recompute()
    assert whole.mismatches == [] and whole.events == RatingEvent.objects.count()
    monkeypatch.setattr(recompute_module, "RECOMPUTE_CHUNK", 3)  # a history longer than a chunk
    assert ratings_recompute().mismatches == []
    monkeypatch.setattr(results, "fast_reads", lambda: False)  # as on SQLite
    by_orm = ratings_recompute()
    assert by_orm.mismatches == []
    assert (
        by_orm.table.ratings
        == whole.table.ratings
        == {(r.version_id, r.ruleset, r.rules_version): r.rating for r in Rating.objects.all()}
    )


def test_an_event_off_by_one_bit_is_found_and_named_by_its_match(history) -> None:  # type: ignore[no-untyped-def]
    event = RatingEvent.objects.order_by("id")[5]
    RatingEvent.objects.filter(pk=event.pk).update(after=math.nextafter(event.after, math.inf))
    assert ratings_recompute().mismatches == [f"rating events of match {event.match_id} differ"]


def test_an_event_given_to_another_version_is_found(history) -> None:  # type: ignore[no-untyped-def]
    first, second = RatingEvent.objects.filter(game_index=0).order_by("id")[:2]
    assert first.match_id == second.match_id and first.version_id != second.version_id
    RatingEvent.objects.filter(pk=first.pk).update(version_id=second.version_id)
    assert f"rating events of match {first.match_id} differ" in ratings_recompute().mismatches


def test_a_missing_event_is_found(history) -> None:  # type: ignore[no-untyped-def]
    event = RatingEvent.objects.order_by("id").last()
    assert event is not None
    stored = RatingEvent.objects.count()
    event.delete()
    assert ratings_recompute().mismatches == [
        f"rating events of match {event.match_id} differ",
        f"{stored - 1} rating events stored, {stored} recomputed",
    ]


def test_an_event_of_a_match_never_applied_is_found(history) -> None:  # type: ignore[no-untyped-def]
    event = RatingEvent.objects.order_by("id").first()
    assert event is not None
    stored = RatingEvent.objects.count()
    unranked = match_schedule(versions=[entrant.version for entrant in history[0].entrants.all()], games=1)
    RatingEvent.objects.create(
        key=f"{unranked.pk}:0:{event.version_id}",
        match=unranked,
        game_index=0,
        version_id=event.version_id,
        ruleset=event.ruleset,
        rules_version=event.rules_version,
        before=event.before,
        after=event.after,
        delta=event.delta,
        k=event.k,
    )
    assert ratings_recompute().mismatches == [f"{stored + 1} rating events stored, {stored} recomputed"]


def test_the_recompute_rewrites_a_tampered_log_to_what_the_writer_wrote(history) -> None:  # type: ignore[no-untyped-def]
    written = sorted(RatingEvent.objects.values_list("key", "match_id", "game_index", "before", "after", "delta", "k"))
    table = live_table()
    RatingEvent.objects.filter(pk=RatingEvent.objects.order_by("id")[3].pk).update(after=0.0)
    Rating.objects.filter(pk=Rating.objects.first().pk).update(games=999)
    assert ratings_recompute(write=True).mismatches
    assert ratings_recompute().mismatches == []
    assert live_table() == table
    rewritten = sorted(
        RatingEvent.objects.values_list("key", "match_id", "game_index", "before", "after", "delta", "k")
    )
    assert rewritten == written  # every field, exactly as the writer's EloTable gave it


def test_a_stored_game_the_packed_read_cannot_hold_is_refused_not_misread(history) -> None:  # type: ignore[no-untyped-def]
    """Seats and ranks are read as single digits: a value of two digits is an error, never two
    values."""
    from tournaments.models import Game

    game = Game.objects.filter(match=history[0]).first()
    assert game is not None
    Game.objects.filter(pk=game.pk).update(ranks=[10] * len(game.ranks))
    with pytest.raises(ValueError, match="not single digits"):
        ratings_recompute()
