"""Recurring tournaments: templates that make a tournament at every interval.

A ``RecurringTournament`` holds a tournament's settings (every active version or open sign-up,
never chosen versions), an interval and the next slot. ``recurring_tournament_check`` and
``recurring_tournament_save`` keep a template valid as a whole; ``recurring_tournament_run``
(called by the tournaments tick) makes the tournament of a slot that has passed and moves on to
the next slot after now, skipping missed slots rather than making them up.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from lineit_platform.errors import ApplicationError

from ...models import TOURNAMENT_SETTINGS, RecurringTournament, Tournament
from .creation import tournament_create, tournament_settings_check

logger = logging.getLogger(__name__)

# --- Recurring tournaments --------------------------------------------------------------------

RECURRING_FIELDS = (*TOURNAMENT_SETTINGS, "enabled", "every", "next_run_at", "signup_window")


def recurring_tournament_check(recurring: RecurringTournament) -> None:
    """Raise ApplicationError unless this template makes tournaments."""
    if recurring.participation == Tournament.Participation.CHOSEN:
        raise ApplicationError("a recurring tournament takes every active version or open sign-up")
    if recurring.every.total_seconds() < 60:
        raise ApplicationError("a recurring tournament runs at most once a minute")
    if recurring.signup_window.total_seconds() < 0 or recurring.signup_window > recurring.every:
        raise ApplicationError("the sign-up window must be from zero to the interval")
    if timezone.is_naive(recurring.next_run_at):
        raise ApplicationError("next_run_at needs a time zone (times are kept in UTC)")
    tournament_settings_check(**recurring.play_settings())


@transaction.atomic
def recurring_tournament_save(*, recurring: RecurringTournament | None = None, **fields: Any) -> RecurringTournament:
    """Create (``recurring`` None) or change a recurring tournament, checking it as a whole."""
    unknown = set(fields) - set(RECURRING_FIELDS)
    if unknown:
        raise ApplicationError(f"unknown fields {', '.join(sorted(unknown))}")
    recurring = recurring if recurring is not None else RecurringTournament()
    for name, value in fields.items():
        setattr(recurring, name, value)
    recurring_tournament_check(recurring)
    recurring.save()
    return recurring


@transaction.atomic
def recurring_tournament_run(*, recurring_id: int, now: datetime | None = None) -> Tournament | None:
    """Make the tournament of the slot ``next_run_at`` once it has passed, and move to the next
    slot after now (missed slots are skipped, not made up). None when nothing is due."""
    now = now or timezone.now()
    recurring = RecurringTournament.objects.select_for_update().get(pk=recurring_id)
    if not recurring.enabled or recurring.next_run_at > now:
        return None
    occurrence = recurring.next_run_at
    missed = (now - occurrence) // recurring.every
    recurring.next_run_at = occurrence + (missed + 1) * recurring.every
    recurring.last_run_at = now
    recurring.save(update_fields=["next_run_at", "last_run_at"])
    starts_at = max(occurrence, now) + recurring.signup_window
    open_sign_up = recurring.participation == Tournament.Participation.OPEN
    try:
        return tournament_create(
            name=f"{recurring.name} {occurrence:%Y-%m-%d %H:%M}",
            starts_at=starts_at,
            **recurring.play_settings(),
            ranked=recurring.ranked,
            participation=recurring.participation,
            signup_deadline=starts_at if open_sign_up else None,
            max_entrants=recurring.max_entrants,
            recurring=recurring,
            occurrence=occurrence,
        )
    except ApplicationError as error:
        logger.warning("recurring tournament %s: %s", recurring.pk, error.message)
        return None
