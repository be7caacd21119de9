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

import numpy as np
from django.db import transaction
from django.utils import timezone
from numpy.typing import NDArray

from lineit.engine import RULES_VERSION, RULESETS
from lineit.stats.elo_batch import MAX_PLAYERS
from lineit.stats.plackett_luce import PRIOR_ELO, plackett_luce_arrays, rank_ranges
from lineit.stats.plackett_luce_model import FitError, Games, block_from_arrays

from ..models import Match, Rating, RatingFit, RatingFitRun, RatingLedger
from ..selectors.results import Places, entrant_rows, game_arrays

FIT_CHUNK = 50_000  # matches read at a time
DEALS_PER_MATCH = 1 << 20  # a deal group's key: match * this + deal


def rated_game_arrays(*, ruleset: str, rules_version: str) -> tuple[list[int], Games]:
    """Every game of the finished ranked matches of this ruleset and rules version, as the fit's
    arrays: the versions (player i is the list's i-th) and ranks per seat, and each game's deal
    group (match, deal). Read a chunk of matches at a time (selectors/results.py)."""
    ids = list(
        Match.objects.filter(ranked=True, status=Match.Status.FINISHED, ruleset=ruleset, rules_version=rules_version)
        .order_by("id")
        .values_list("id", flat=True)
    )
    by_size: dict[int, list[tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]]] = {}
    for start in range(0, len(ids), FIT_CHUNK):
        chunk = ids[start : start + FIT_CHUNK]
        places = Places(chunk)
        entrants = entrant_rows(chunk)
        by_entrant = np.full((len(chunk), MAX_PLAYERS), -1, dtype=np.int64)
        by_entrant[places(entrants[:, 0]), entrants[:, 1]] = entrants[:, 2]
        games = game_arrays(chunk, deals=True)
        place = places(games.match_id)
        groups = games.match_id * DEALS_PER_MATCH + games.deal
        for size in np.unique(games.sizes).tolist():
            chosen = np.flatnonzero(games.sizes == size)
            versions = by_entrant[place[chosen, None], games.seats[chosen, :size]]
            by_size.setdefault(size, []).append((versions, games.ranks[chosen, :size], groups[chosen]))
    stacked = [[np.concatenate(column) for column in zip(*by_size[size], strict=True)] for size in sorted(by_size)]
    if not stacked:
        return [], Games(0, ())
    keys, dense = np.unique(np.concatenate([versions.ravel() for versions, _, _ in stacked]), return_inverse=True)
    _, group_ids = np.unique(np.concatenate([groups for _, _, groups in stacked]), return_inverse=True)
    blocks, offset, group_offset = [], 0, 0
    for versions, ranks, groups in stacked:
        players = dense[offset : offset + versions.size].reshape(versions.shape)
        blocks.append(block_from_arrays(players, ranks, group_ids[group_offset : group_offset + len(groups)]))
        offset, group_offset = offset + versions.size, group_offset + len(groups)
    return [int(key) for key in keys], Games(len(keys), tuple(blocks))


def ratings_fit(*, ruleset: str, rules_version: str = RULES_VERSION, prior_elo: float = PRIOR_ELO) -> RatingFitRun:
    """Fit every rated game of ``ruleset`` (and ``rules_version``) and replace that ruleset's
    whole-history ratings with the fit's, at once. Raises FitError for a ruleset that is not one."""
    if ruleset not in RULESETS:
        raise FitError(f"unknown ruleset {ruleset!r}: one of {', '.join(RULESETS)}")
    started = time.perf_counter()
    keys, games = rated_game_arrays(ruleset=ruleset, rules_version=rules_version)
    fit = plackett_luce_arrays(keys, games, prior_elo=prior_elo)
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
            games=games.games,
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
