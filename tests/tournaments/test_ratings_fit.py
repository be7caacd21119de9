"""The whole-history fit on the platform: what it reads, what it writes, that it swaps the whole
set at once, and that it leaves the live Elo exactly as it was."""

from __future__ import annotations

import math

import pytest
from django.core.management import CommandError, call_command

from bots.models import BotVersion
from lineit.engine import RULES_VERSION
from lineit.stats.plackett_luce import ELO_PER_UNIT
from lineit.stats.plackett_luce_model import FitError
from tournaments.models import Game, Match, MatchEntrant, Rating, RatingEvent, RatingFit, RatingFitRun
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule
from tournaments.services.ratings_fit import ratings_fit
from tournaments.services.ratings_recompute import ratings_recompute
from tournaments.tasks import ratings_fit_task

pytestmark = pytest.mark.django_db


def stored_match(
    versions: list[BotVersion], results: list[tuple[int, ...]], *, ruleset: str = "standard", deals: int = 1
) -> Match:
    """A finished ranked match as the platform stores one: each game's ranks per seat (entrant
    ``i`` in seat ``i``), the games split into ``deals`` deal groups."""
    match = Match.objects.create(
        ruleset=ruleset,
        rules_version=RULES_VERSION,
        num_players=len(versions),
        games=len(results),
        seed=1,
        ranked=True,
        status=Match.Status.FINISHED,
    )
    MatchEntrant.objects.bulk_create(
        MatchEntrant(match=match, index=i, version=version) for i, version in enumerate(versions)
    )
    Game.objects.bulk_create(
        Game(
            match=match,
            index=index,
            deal=index * deals // len(results),
            deck_seed=index,
            seats=list(range(len(versions))),
            scores=[0] * len(versions),
            ranks=list(ranks),
            replay=b"",
        )
        for index, ranks in enumerate(results)
    )
    return match


def test_two_versions_w_wins_of_n_are_stored_with_their_interval(version_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = version_factory(), version_factory()
    stored_match([a, b], [(1, 2)] * 30 + [(2, 1)] * 10)

    run = ratings_fit(ruleset="standard", prior_elo=1e6)  # a prior this wide is the plain fit

    fits = {fit.version_id: fit for fit in RatingFit.objects.all()}
    gap = fits[a.pk].rating - fits[b.pk].rating
    assert gap == pytest.approx(ELO_PER_UNIT * math.log(30 / 10), abs=0.01)
    assert fits[a.pk].low < fits[a.pk].rating < fits[a.pk].high
    assert fits[a.pk].games == 40 and fits[a.pk].run == run
    assert (run.games, run.versions, run.disconnected, run.interval) == (40, 2, 0, "curvature")
    # 30 of 40 at 95%: the intervals overlap, so both could be first.
    assert (fits[a.pk].rank_best, fits[a.pk].rank_worst) == (1, 2) or fits[b.pk].high < fits[a.pk].low


def test_a_refit_replaces_the_whole_set_and_keeps_each_run(version_factory) -> None:  # type: ignore[no-untyped-def]
    a, b, c = version_factory(), version_factory(), version_factory()
    stored_match([a, b, c], [(1, 2, 3), (2, 3, 1), (3, 1, 2)] * 5)
    first = ratings_fit(ruleset="standard")
    stored_match([a, b], [(1, 2)] * 20)

    second = ratings_fit(ruleset="standard")

    assert set(RatingFit.objects.values_list("run", flat=True)) == {second.pk}
    assert RatingFit.objects.count() == 3 and RatingFitRun.objects.count() == 2
    assert first.games == 15 and second.games == 35
    assert RatingFit.objects.get(version=a).rating > RatingFit.objects.get(version=b).rating


def test_versions_that_never_met_the_main_pool_get_no_fitted_rating(version_factory) -> None:  # type: ignore[no-untyped-def]
    a, b, c, d, e = (version_factory() for _ in range(5))
    stored_match([a, b, c], [(1, 2, 3), (3, 2, 1), (2, 1, 3)] * 4)
    stored_match([d, e], [(1, 2), (2, 1)])

    run = ratings_fit(ruleset="standard")

    assert set(RatingFit.objects.values_list("version_id", flat=True)) == {a.pk, b.pk, c.pk}
    assert (run.versions, run.disconnected) == (3, 2)


def test_each_ruleset_is_fitted_apart_and_ties_pull_the_pair_together(version_factory) -> None:  # type: ignore[no-untyped-def]
    a, b = version_factory(), version_factory()
    stored_match([a, b], [(1, 2)] * 10 + [(1, 1)] * 10, ruleset="standard")
    stored_match([a, b], [(1, 2)] * 10, ruleset="bga")

    ratings_fit(ruleset="standard")
    ratings_fit(ruleset="bga")

    standard = {f.version_id: f.rating for f in RatingFit.objects.filter(ruleset="standard")}
    other = {f.version_id: f.rating for f in RatingFit.objects.filter(ruleset="bga")}
    assert set(other) == {a.pk, b.pk}
    assert 0 < standard[a.pk] - standard[b.pk] < other[a.pk] - other[b.pk]


def test_the_fit_leaves_the_live_elo_exactly_as_it_was(version_factory) -> None:  # type: ignore[no-untyped-def]
    a, b, c = version_factory(), version_factory(), version_factory()
    for seed, versions in enumerate(([a, b], [b, c], [a, b, c])):
        match = match_schedule(versions=versions, games=2, ranked=True, seed=seed)
        match_execute(match_id=match.pk, worker="test")
    live = sorted(Rating.objects.values_list("version_id", "rating", "games"))
    events = RatingEvent.objects.count()

    assert ratings_fit_task() == 3  # the periodic task: every rated ruleset

    assert sorted(Rating.objects.values_list("version_id", "rating", "games")) == live
    assert RatingEvent.objects.count() == events and ratings_recompute().mismatches == []
    assert {f.games for f in RatingFit.objects.filter(version=b)} == {4 + 2}


def test_the_command_fits_on_demand_and_refuses_bad_input_changing_nothing(version_factory, capsys) -> None:  # type: ignore[no-untyped-def]
    a, b = version_factory(), version_factory()
    stored_match([a, b], [(1, 2), (2, 1), (1, 2)])

    with pytest.raises(CommandError, match="positive"):
        call_command("fit_ratings", "--ruleset", "standard", "--prior-elo", "-5")
    assert not RatingFitRun.objects.exists()
    with pytest.raises(FitError, match="unknown ruleset"):
        ratings_fit(ruleset="nonsense")

    call_command("fit_ratings", "--ruleset", "standard")

    assert "standard" in capsys.readouterr().out and RatingFit.objects.count() == 2
