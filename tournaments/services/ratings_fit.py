"""The whole-history ratings: every rated game of a ruleset and rules version fitted at once
(lineit.stats.plackett_luce), beside the live Elo, which this never touches.

One writer: ``ratings_fit`` reads the games, fits them outside any transaction, then swaps the
whole set of RatingFit rows of that ruleset and rules version for the new one in one transaction
(a reader sees the old set or the new, never a mix). Refitted by the periodic task
``ratings_fit_task`` (every RATINGS_FIT_SECONDS, housekeeping queue), by ``manage.py
fit_ratings`` and by staff through the API.

Only the main component is rated: versions that never met it (directly or through opponents)
have no whole-history rating, as their ratings would not compare with the others; the run
counts them (``disconnected``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from django.db import transaction
from django.utils import timezone

from lineit.engine import RULES_VERSION, RULESETS
from lineit.stats.plackett_luce import PRIOR_ELO, FitError, plackett_luce, rank_ranges

from ..models import Game, Match, MatchEntrant, Rating, RatingFit, RatingFitRun, RatingLedger

GameRow = tuple[tuple[int, ...], tuple[int, ...]]  # versions per seat, ranks per seat


def rated_games_with_deals(*, ruleset: str, rules_version: str) -> Iterator[tuple[GameRow, tuple[int, int]]]:
    """Every game of the finished ranked matches of this ruleset and rules version: the versions
    and ranks per seat, and its deal group (match, deal). In no particular order: the fit has none."""
    matches = Match.objects.filter(
        ranked=True, status=Match.Status.FINISHED, ruleset=ruleset, rules_version=rules_version
    )
    entrants: dict[int, dict[int, int]] = {}
    for match_id, index, version_id in (
        MatchEntrant.objects.filter(match__in=matches).values_list("match_id", "index", "version_id").iterator(5000)
    ):
        entrants.setdefault(match_id, {})[index] = version_id
    games = Game.objects.filter(match__in=matches).order_by().values_list("match_id", "deal", "seats", "ranks")
    for match_id, deal, seats, ranks in games.iterator(chunk_size=5000):
        by_entrant = entrants[match_id]
        yield (tuple(by_entrant[seat] for seat in seats), tuple(ranks)), (match_id, deal)


def ratings_fit(*, ruleset: str, rules_version: str = RULES_VERSION, prior_elo: float = PRIOR_ELO) -> RatingFitRun:
    """Fit every rated game of ``ruleset`` (and ``rules_version``) and replace that ruleset's
    whole-history ratings with the fit's, at once. Raises FitError for a ruleset that is not one."""
    if ruleset not in RULESETS:
        raise FitError(f"unknown ruleset {ruleset!r}: one of {', '.join(RULESETS)}")
    started = time.perf_counter()
    pairs = list(rated_games_with_deals(ruleset=ruleset, rules_version=rules_version))
    fit = plackett_luce((game for game, _ in pairs), groups=(group for _, group in pairs), prior_elo=prior_elo)
    main = {version: rating for version, rating in fit.ratings.items() if rating.component == 0}
    ranks = rank_ranges([(rating.low, rating.high) for rating in main.values()])
    seconds = time.perf_counter() - started
    now = timezone.now()
    with transaction.atomic():
        # One swap at a time: two fits finishing together replace the set one after the other.
        RatingLedger.objects.get_or_create(name="fit")
        RatingLedger.objects.select_for_update().get(name="fit")
        run = RatingFitRun.objects.create(
            ruleset=ruleset,
            rules_version=rules_version,
            fitted_at=now,
            games=len(pairs),
            versions=len(main),
            disconnected=len(fit.ratings) - len(main),
            interval=fit.interval,
            prior_elo=prior_elo,
            seconds=seconds,
        )
        RatingFit.objects.filter(ruleset=ruleset, rules_version=rules_version).delete()
        RatingFit.objects.bulk_create(
            [
                RatingFit(
                    version_id=version,
                    ruleset=ruleset,
                    rules_version=rules_version,
                    run=run,
                    rating=rating.rating,
                    low=rating.low,
                    high=rating.high,
                    games=rating.games,
                    rank_best=best,
                    rank_worst=worst,
                    fitted_at=now,
                )
                for (version, rating), (best, worst) in zip(main.items(), ranks, strict=True)
            ],
            batch_size=2000,
        )
    return run


def ratings_fit_all(*, prior_elo: float = PRIOR_ELO) -> list[RatingFitRun]:
    """Refit every ruleset and rules version that has live ratings."""
    pairs = Rating.objects.order_by().values_list("ruleset", "rules_version").distinct()
    return [
        ratings_fit(ruleset=ruleset, rules_version=rules_version, prior_elo=prior_elo)
        for ruleset, rules_version in sorted(pairs)
    ]
