"""Setting a tournament up: its settings, creating it, and the entries before the start.

``tournament_settings_check`` and ``tournament_create_check`` say whether settings make a
tournament (the admin and the recurring templates use them too); ``tournament_create`` makes the
tournament, enters the chosen versions and schedules its start as a one-off django-celery-beat
task. Until the start, owners (or staff) sign bots up and withdraw them under a lock on the
tournament's row (``Tournament.objects.locked``, as ``running`` does), so entries freeze cleanly at the start.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django_celery_beat.models import ClockedSchedule, PeriodicTask

from bots.models import Bot, BotVersion
from lineit import formats
from lineit.botkit.limits import Limits
from lineit.engine import MAX_PLAYERS, RULESETS
from lineit_platform.errors import ApplicationError, Conflict, Forbidden

from ...models import RecurringTournament, Tournament, TournamentEntry
from ..matches.states import match_duration_check

MAX_GAMES_PER_PAIRING = 1000


# --- Settings ---------------------------------------------------------------------------------


def tournament_options(settings_row: Tournament | RecurringTournament) -> formats.Options:
    return formats.Options(
        table_size=settings_row.table_size,
        games_per_pairing=settings_row.games_per_pairing,
        duplicate_deals=settings_row.duplicate_deals,
        **settings_row.options,
    )


def tournament_settings_check(
    *,
    format: str,
    table_size: int,
    options: dict[str, Any],
    games_per_pairing: int,
    duplicate_deals: bool = True,
    ruleset: str,
    limits: dict[str, Any],
    entrants: int | None = None,
) -> None:
    """Raise ApplicationError unless these settings make a tournament. With ``entrants`` unknown
    (open sign-up) the field size is checked at the start. The format's part is asked of the
    format (lineit.formats): which options it reads and their types first (``rounds: -1`` given
    to a round robin is refused, not left unread), then whether it can be played."""
    try:
        formats.check_options(format, options)
    except formats.FormatError as error:
        raise ApplicationError(str(error)) from None
    if ruleset not in RULESETS:
        raise ApplicationError(f"unknown ruleset {ruleset!r}; choose one of {', '.join(RULESETS)}")
    if not 1 <= games_per_pairing <= MAX_GAMES_PER_PAIRING:
        raise ApplicationError(f"games per pairing must be from 1 to {MAX_GAMES_PER_PAIRING}")
    try:
        chosen_limits = Limits.from_dict(limits)
    except (TypeError, ValueError) as error:
        raise ApplicationError(str(error)) from None
    for seats in range(2, min(table_size, MAX_PLAYERS) + 1):  # a table may be short of seats (an odd field)
        match_duration_check(num_players=seats, games=games_per_pairing, limits=chosen_limits)
    try:
        chosen = formats.Options(
            table_size=table_size, games_per_pairing=games_per_pairing, duplicate_deals=duplicate_deals, **options
        )
        if entrants is None:  # a trial field: the options must fit some field
            chosen = formats.for_any_field(chosen)
            entrants = max(4, 2 * table_size)
        formats.first_round(format, [formats.Entrant(id=n) for n in range(1, entrants + 1)], chosen)
    except (formats.FormatError, TypeError, ValueError) as error:
        raise ApplicationError(str(error)) from None


# --- Creating and signing up ------------------------------------------------------------------


def tournament_create_check(
    *,
    format: str,
    starts_at: datetime,
    table_size: int = 2,
    options: dict[str, Any] | None = None,
    games_per_pairing: int = 8,
    duplicate_deals: bool = True,
    ruleset: str = "standard",
    limits: dict[str, Any] | None = None,
    participation: str = "chosen",
    versions: Sequence[BotVersion] = (),
    signup_deadline: datetime | None = None,
    max_entrants: int | None = None,
) -> datetime | None:
    """Raise ApplicationError unless ``tournament_create`` would accept these; returns the
    sign-up deadline it would use."""
    if timezone.is_naive(starts_at):
        raise ApplicationError("starts_at needs a time zone (times are kept in UTC)")
    if participation not in Tournament.Participation.values:
        raise ApplicationError(f"participation must be one of {', '.join(Tournament.Participation.values)}")
    chosen = participation == Tournament.Participation.CHOSEN
    if chosen and len({version.pk for version in versions}) != len(versions):
        raise ApplicationError("a version can enter only once")
    if not chosen and versions:
        raise ApplicationError(f"versions are chosen only with participation 'chosen', not {participation!r}")
    for version in versions:
        if version.status != BotVersion.Status.ACTIVE:
            raise ApplicationError(f"{version.label} is {version.status}; only active versions can enter")
    if max_entrants is not None and (max_entrants < 2 or (chosen and len(versions) > max_entrants)):
        raise ApplicationError("max_entrants must be at least 2 and hold the chosen versions")
    tournament_settings_check(
        format=format,
        table_size=table_size,
        options=options or {},
        games_per_pairing=games_per_pairing,
        duplicate_deals=duplicate_deals,
        ruleset=ruleset,
        limits=limits or {},
        entrants=len(versions) if chosen else None,
    )
    if participation == Tournament.Participation.OPEN:
        signup_deadline = signup_deadline or starts_at
        if signup_deadline > starts_at:
            raise ApplicationError("sign-up must close by the start")
    elif signup_deadline is not None:
        raise ApplicationError("a sign-up deadline goes only with open sign-up")
    return signup_deadline


@transaction.atomic
def tournament_create(
    *,
    name: str,
    format: str,
    starts_at: datetime,
    table_size: int = 2,
    options: dict[str, Any] | None = None,
    games_per_pairing: int = 8,
    duplicate_deals: bool = True,
    ruleset: str = "standard",
    limits: dict[str, Any] | None = None,
    ranked: bool = False,
    participation: str = "chosen",
    versions: Sequence[BotVersion] = (),
    signup_deadline: datetime | None = None,
    max_entrants: int | None = None,
    seed: int | None = None,
    created_by: AbstractBaseUser | None = None,
    recurring: RecurringTournament | None = None,
    occurrence: datetime | None = None,
) -> Tournament:
    """A tournament that starts at ``starts_at`` (a one-off django-celery-beat task, with the
    tournaments tick as a safety net). Chosen versions enter now; open sign-up takes entries
    until ``signup_deadline`` (default: the start); every active version enters at the start."""
    options, limits = dict(options or {}), dict(limits or {})
    signup_deadline = tournament_create_check(
        format=format,
        starts_at=starts_at,
        table_size=table_size,
        options=options,
        games_per_pairing=games_per_pairing,
        duplicate_deals=duplicate_deals,
        ruleset=ruleset,
        limits=limits,
        participation=participation,
        versions=versions,
        signup_deadline=signup_deadline,
        max_entrants=max_entrants,
    )
    tournament = Tournament.objects.create(
        name=name,
        format=format,
        table_size=table_size,
        options=options,
        games_per_pairing=games_per_pairing,
        duplicate_deals=duplicate_deals,
        ruleset=ruleset,
        limits=limits,
        ranked=ranked,
        participation=participation,
        max_entrants=max_entrants,
        status=Tournament.Status.OPEN if signup_deadline else Tournament.Status.SCHEDULED,
        seed=secrets.randbits(62) if seed is None else seed,
        starts_at=starts_at,
        signup_deadline=signup_deadline,
        created_by=created_by,
        recurring=recurring,
        occurrence=occurrence,
    )
    TournamentEntry.objects.bulk_create(
        TournamentEntry(tournament=tournament, bot_id=version.bot_id, version=version, signed_up_by=created_by)
        for version in versions
    )
    clocked = ClockedSchedule.objects.create(clocked_time=starts_at)
    tournament.start_task = PeriodicTask.objects.create(
        name=f"tournament {tournament.pk} start",
        task="tournaments.tasks.tournament_start_task",
        clocked=clocked,
        one_off=True,
        args=json.dumps([tournament.pk]),
    )
    tournament.save(update_fields=["start_task"])
    return tournament


def _may_enter(user: AbstractBaseUser, bot: Bot) -> bool:
    return bool(getattr(user, "is_staff", False)) or bot.owner_id == user.pk


@transaction.atomic
def tournament_sign_up(
    *, tournament: Tournament, bot: Bot, user: AbstractBaseUser, version: BotVersion | None = None
) -> TournamentEntry:
    """Enter ``bot`` (its owner or staff): with ``version`` that version, else its newest active
    version at the start."""
    tournament = Tournament.objects.locked(tournament.pk)
    now = timezone.now()
    if tournament.status != Tournament.Status.OPEN or (
        tournament.signup_deadline is not None and tournament.signup_deadline <= now
    ):
        raise Conflict(f"{tournament.name} is not open for sign-up")
    if not _may_enter(user, bot):
        raise Forbidden("only the bot's owner (or staff) may sign it up")
    if version is not None and (version.bot_id != bot.pk or version.status != BotVersion.Status.ACTIVE):
        raise ApplicationError(f"{version.label} is not an active version of {bot.name}")
    if version is None and not bot.versions.active().exists():
        raise ApplicationError(f"{bot.name} has no active version")
    entries = tournament.entries.all()
    if entries.filter(bot=bot).exists():
        raise Conflict(f"{bot.name} is already signed up")
    if tournament.max_entrants is not None and entries.count() >= tournament.max_entrants:
        raise Conflict(f"{tournament.name} is full ({tournament.max_entrants} entrants)")
    return TournamentEntry.objects.create(tournament=tournament, bot=bot, version=version, signed_up_by=user)


@transaction.atomic
def tournament_withdraw(*, entry: TournamentEntry, user: AbstractBaseUser) -> None:
    tournament = Tournament.objects.locked(entry.tournament_id)
    if tournament.status not in Tournament.NOT_STARTED:
        raise Conflict(f"{tournament.name} has started; entries are frozen")
    if not _may_enter(user, entry.bot):
        raise Forbidden("only the bot's owner (or staff) may withdraw it")
    entry.delete()
