"""Celery tasks: thin, carry only ids, claim the row and call one service."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from lineit.botkit.referee import PlatformFailure


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.MATCH_TIME_LIMIT_SECONDS,
    soft_time_limit=settings.MATCH_TIME_LIMIT_SECONDS - settings.MATCH_SOFT_MARGIN_SECONDS,
    max_retries=settings.MATCH_MAX_ATTEMPTS,
)
def match_run_task(self, match_id: int) -> str | None:
    from lineit.sandbox import SandboxUnavailable
    from lineit_platform.workers import worker_name
    from tournaments.services.matches.execution import match_execute

    try:
        match = match_execute(match_id=match_id, worker=worker_name(self.request.hostname))
    except (PlatformFailure, SandboxUnavailable) as error:
        # The match went back to the queue (or failed when out of attempts); try again later.
        raise self.retry(exc=error, countdown=settings.MATCH_RETRY_DELAY_SECONDS) from error
    return None if match is None else str(match.status)


@shared_task(acks_late=True, time_limit=120, soft_time_limit=100)
def ladder_tick() -> int:
    from tournaments.services.ladder import ladder_tick as tick

    return len(tick())


@shared_task(acks_late=True, time_limit=120, soft_time_limit=100)
def matches_sweep() -> dict[str, int]:
    from tournaments.services.matches.sweeper import matches_sweep as sweep

    return sweep()


@shared_task(acks_late=True, time_limit=600, soft_time_limit=570)
def ratings_apply() -> int:
    from tournaments.services.ratings import ratings_apply_pending

    return ratings_apply_pending()


@shared_task(acks_late=True, time_limit=1800, soft_time_limit=1750)
def ratings_fit_task() -> int:
    """The whole-history fit of every ruleset, every RATINGS_FIT_SECONDS: the versions rated."""
    from tournaments.services.ratings_fit import ratings_fit_all

    return sum(run.versions for run in ratings_fit_all())


# --- Tournaments: each task calls one idempotent service; the tick is the safety net. ---------


@shared_task(acks_late=True, time_limit=300, soft_time_limit=270)
def tournament_start_task(tournament_id: int) -> str | None:
    """Queued by the tournament's one-off django-celery-beat task at its start time."""
    from tournaments.services.tournaments.running import tournament_start as start

    from .models import Tournament

    try:
        return str(start(tournament_id=tournament_id).status)
    except Tournament.DoesNotExist:
        return None


@shared_task(acks_late=True, time_limit=300, soft_time_limit=270)
def tournament_advance_task(tournament_id: int) -> str | None:
    """Queued after commit whenever one of the tournament's matches ends."""
    from tournaments.services.tournaments.running import tournament_advance

    from .models import Tournament

    try:
        return str(tournament_advance(tournament_id=tournament_id).status)
    except Tournament.DoesNotExist:
        return None


@shared_task(acks_late=True, time_limit=600, soft_time_limit=570)
def tournaments_tick() -> dict[str, int]:
    from tournaments.services.tournaments.running import tournaments_tick as tick

    return tick()


# --- SPRT of a new version (services/sprt.py): ids in, one idempotent service each. -----------


@shared_task(acks_late=True, time_limit=120, soft_time_limit=100)
def sprt_version_changed_task(version_id: int) -> int | None:
    """Sent after commit when a version becomes active or leaves play: start or cancel its test."""
    from tournaments.services.sprt import sprt_version_changed

    test = sprt_version_changed(version_id=version_id)
    return None if test is None else test.pk


@shared_task(acks_late=True, time_limit=120, soft_time_limit=100)
def sprt_match_ended_task(match_id: int) -> str | None:
    """Sent after commit when an SPRT batch match ends: fold it in, go on or decide."""
    from tournaments.services.sprt import sprt_record_match

    test = sprt_record_match(match_id=match_id)
    return None if test is None else str(test.status)


@shared_task(acks_late=True, time_limit=300, soft_time_limit=270)
def sprt_sweep_task() -> dict[str, int]:
    from tournaments.services.sprt import sprt_sweep

    return sprt_sweep()
