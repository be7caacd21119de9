"""Tournaments on the platform: create, sign up, start, advance round by round, finish, cancel.

The pairing rules live in ``tournaments.formats`` (pure); this module keeps a tournament's whole
state in ``Tournament.state`` and turns each pending pairing into a match (``Match.tournament``,
``tournament_round``, ``tournament_table``; unique, so a round is never created twice).

Every step runs under a lock on the tournament's row and checks the status first, so a task that
runs twice, or the periodic tick racing a task, does nothing the second time. A tournament
advances when every match of its round has ended: finished (decided by its games), or failed or
cancelled by the platform, which counts as a tie between everyone at the table (they share the
place and split the points; in elimination the better seed goes on, the formats' tie rule).
A bot that fails every game still ends its match, last.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django_celery_beat.models import ClockedSchedule, PeriodicTask

from bots.models import Bot, BotVersion
from lineit_platform.botkit.limits import Limits
from lineit_platform.engine import RULES_VERSION, RULESETS
from lineit_platform.errors import ApplicationError, Conflict, Forbidden

from .. import formats
from ..models import Game, Match, Rating, RecurringTournament, Tournament, TournamentEntry
from .matches import match_cancel, match_schedule

logger = logging.getLogger(__name__)

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
    (open sign-up) the field size is checked at the start."""
    unknown = set(options) - set(Tournament.FORMAT_OPTIONS)
    if unknown:
        raise ApplicationError(
            f"unknown options {', '.join(sorted(unknown))}; allowed: {', '.join(Tournament.FORMAT_OPTIONS)}"
        )
    if ruleset not in RULESETS:
        raise ApplicationError(f"unknown ruleset {ruleset!r}; choose one of {', '.join(RULESETS)}")
    if not 1 <= games_per_pairing <= MAX_GAMES_PER_PAIRING:
        raise ApplicationError(f"games per pairing must be from 1 to {MAX_GAMES_PER_PAIRING}")
    try:
        Limits.from_dict(limits)
        chosen = formats.Options(
            table_size=table_size, games_per_pairing=games_per_pairing, duplicate_deals=duplicate_deals, **options
        )
        if entrants is None:  # a trial field: the options must fit some field
            chosen = replace(chosen, rounds=None)
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


def _lock(tournament_id: int) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament_id)


def _may_enter(user: AbstractBaseUser, bot: Bot) -> bool:
    return bool(getattr(user, "is_staff", False)) or bot.owner_id == user.pk


@transaction.atomic
def tournament_sign_up(
    *, tournament: Tournament, bot: Bot, user: AbstractBaseUser, version: BotVersion | None = None
) -> TournamentEntry:
    """Enter ``bot`` (its owner or staff): with ``version`` that version, else its newest active
    version at the start."""
    tournament = _lock(tournament.pk)
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
    tournament = _lock(entry.tournament_id)
    if tournament.status not in Tournament.NOT_STARTED:
        raise Conflict(f"{tournament.name} has started; entries are frozen")
    if not _may_enter(user, entry.bot):
        raise Forbidden("only the bot's owner (or staff) may withdraw it")
    entry.delete()


# --- Starting ---------------------------------------------------------------------------------


@transaction.atomic
def tournament_start(*, tournament_id: int, now: datetime | None = None, force: bool = False) -> Tournament:
    """Freeze the entries, seed them by rating and create the first round's matches. Does nothing
    before ``starts_at`` (unless ``force``: "start now") or once started."""
    now = now or timezone.now()
    tournament = _lock(tournament_id)
    if tournament.status not in Tournament.NOT_STARTED or (not force and tournament.starts_at > now):
        return tournament
    entrants = _freeze_entries(tournament)
    try:
        state = formats.first_round(tournament.format, entrants, tournament_options(tournament), tournament.seed)
    except formats.FormatError as error:
        return _cancel(tournament, note=f"could not start with {len(entrants)} entrants: {error}", now=now)
    seeds = state.seeds
    for entry in tournament.entries.filter(frozen=True):
        entry.seed = seeds[entry.version_id]
        entry.save(update_fields=["seed"])
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = now
    _disable_start_task(tournament)
    _save_state(tournament, _play(tournament, state, now), now)
    return tournament


def _freeze_entries(tournament: Tournament) -> list[formats.Entrant]:
    if tournament.participation == Tournament.Participation.ALL_ACTIVE:
        TournamentEntry.objects.bulk_create(
            [
                TournamentEntry(tournament=tournament, bot_id=version.bot_id, version=version)
                for version in BotVersion.objects.active().exclude(tournament_entries__tournament=tournament)
            ]
        )
    entries = list(tournament.entries.select_related("version__bot", "bot").order_by("id"))
    newest: dict[int, BotVersion] = {}
    for version in BotVersion.objects.active().filter(bot__in=[e.bot_id for e in entries if e.version is None]):
        if version.number > getattr(newest.get(version.bot_id), "number", 0):
            newest[version.bot_id] = version
    taken: set[int] = {entry.version_id for entry in entries if entry.version_id is not None}
    kept: list[TournamentEntry] = []
    for entry in entries:
        if entry.version is None:
            entry.version = newest.get(entry.bot_id)
            if entry.version is None:
                entry.dropped = "no active version at the start"
            elif entry.version.pk in taken:
                entry.version, entry.dropped = None, "its newest version had already entered"
            else:
                taken.add(entry.version.pk)
        elif entry.version.status != BotVersion.Status.ACTIVE:
            entry.dropped = f"the version was {entry.version.status} at the start"
        if not entry.dropped:
            kept.append(entry)
    ratings = dict(
        Rating.objects.filter(
            version__in=[entry.version for entry in kept], ruleset=tournament.ruleset, rules_version=RULES_VERSION
        ).values_list("version_id", "rating")
    )
    if tournament.max_entrants is not None and len(kept) > tournament.max_entrants:
        kept.sort(key=lambda entry: -ratings.get(entry.version_id, 0.0))
        for entry in kept[tournament.max_entrants :]:
            entry.dropped = f"over the {tournament.max_entrants} entrants allowed (lowest rated)"
        kept = kept[: tournament.max_entrants]
    for entry in entries:
        entry.frozen = not entry.dropped
        entry.save(update_fields=["version", "frozen", "dropped"])
    return [
        formats.Entrant(id=entry.version_id, rating=ratings.get(entry.version_id), name=entry.version.label)
        for entry in kept
    ]


# --- Rounds -----------------------------------------------------------------------------------


def _play(tournament: Tournament, state: formats.TournamentState, now: datetime) -> formats.TournamentState:
    """Pass over rounds of byes only, then create the pending round's matches (those missing)."""
    while state.pending is not None and all(pairing.bye for pairing in state.pending.pairings):
        state = formats.next_round(state, [])
    if state.pending is None:
        tournament.status = Tournament.Status.FINISHED
        tournament.finished_at = now
        return state
    existing = set(
        Match.objects.filter(tournament=tournament, tournament_round=state.pending.number).values_list(
            "tournament_table", flat=True
        )
    )
    versions = BotVersion.objects.select_related("bot").in_bulk([entrant.id for entrant in state.entrants])
    for pairing in state.pending.pairings:
        if pairing.bye or pairing.table in existing:
            continue
        seated = [versions[entrant] for entrant in pairing.entrants]
        match = match_schedule(
            versions=seated,
            games=tournament.games_per_pairing,
            ruleset=tournament.ruleset,
            seed=pairing.match_seed,
            duplicate_deals=tournament.duplicate_deals,
            # A version retired during the tournament still plays, unranked.
            ranked=tournament.ranked and all(v.status == BotVersion.Status.ACTIVE for v in seated),
            limits=tournament.limits,
            requested_by=tournament.created_by,
            origin=Match.Origin.TOURNAMENT,
        )
        Match.objects.filter(pk=match.pk).update(
            tournament=tournament, tournament_round=pairing.round, tournament_table=pairing.table
        )
    return state


def _save_state(tournament: Tournament, state: formats.TournamentState, now: datetime) -> None:
    tournament.state = state.to_dict()
    tournament.round_number = len(state.rounds)
    tournament.save(update_fields=["state", "round_number", "status", "started_at", "finished_at"])


def tournament_match_ended(*, match: Match) -> None:
    """Called whenever a match ends (finished, failed, cancelled): its tournament may advance."""
    if match.tournament_id is not None:
        from ..tasks import tournament_advance_task

        tournament_id = match.tournament_id
        transaction.on_commit(lambda: tournament_advance_task.delay(tournament_id))


@transaction.atomic
def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> Tournament:
    """When every match of the pending round has ended, record the round and pair the next one
    (or finish). Otherwise, and when called again, nothing changes."""
    now = now or timezone.now()
    tournament = _lock(tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        return tournament
    state = formats.TournamentState.from_dict(tournament.state)
    pending = state.pending
    if pending is None:  # cannot happen: finishing and the last round are saved together
        tournament.status, tournament.finished_at = Tournament.Status.FINISHED, now
        _save_state(tournament, state, now)
        return tournament
    matches = {
        match.tournament_table: match
        for match in Match.objects.filter(tournament=tournament, tournament_round=pending.number)
    }
    playing = [pairing for pairing in pending.pairings if not pairing.bye]
    if any(pairing.table not in matches for pairing in playing):
        _save_state(tournament, _play(tournament, state, now), now)  # recreate what is missing
        return tournament
    if any(matches[pairing.table].is_pending for pairing in playing):
        return tournament
    outcomes = [_outcome(pairing, matches[pairing.table]) for pairing in playing]
    _save_state(tournament, _play(tournament, formats.next_round(state, outcomes), now), now)
    return tournament


def _outcome(pairing: formats.Pairing, match: Match) -> formats.MatchOutcome:
    if match.status == Match.Status.FINISHED:
        games = [
            formats.GameResult(
                entrants=tuple(pairing.entrants[entrant] for entrant in game.seats),
                ranks=tuple(game.ranks),
                scores=tuple(game.scores),
            )
            for game in match.game_logs.order_by("index").only("seats", "ranks", "scores")
        ]
        return formats.decide_match(pairing, games)
    # Failed or cancelled by the platform: a tie, everyone shares the place and the points.
    last = float(len(pairing.entrants))
    return formats.MatchOutcome(
        round=pairing.round,
        table=pairing.table,
        results=tuple(
            formats.EntrantResult(entrant=entrant, place=1, points=0.5, mean_rank=last, mean_score=0.0, games=0)
            for entrant in pairing.entrants
        ),
    )


# --- Cancelling and the periodic tick -----------------------------------------------------------


@transaction.atomic
def tournament_cancel(*, tournament: Tournament, note: str = "") -> Tournament:
    """Stop a tournament that has not finished; its queued and running matches are cancelled."""
    tournament = _lock(tournament.pk)
    if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        raise Conflict(f"{tournament.name} is {tournament.status}; it cannot be cancelled")
    return _cancel(tournament, note=note or "cancelled", now=timezone.now())


def _cancel(tournament: Tournament, *, note: str, now: datetime) -> Tournament:
    tournament.status = Tournament.Status.CANCELLED
    tournament.finished_at = now
    tournament.note = note[:2000]
    tournament.save(update_fields=["status", "finished_at", "note"])
    _disable_start_task(tournament)
    for match in Match.objects.pending().filter(tournament=tournament):
        with contextlib.suppress(Conflict):  # it ended meanwhile
            match_cancel(match=match)
    return tournament


def _disable_start_task(tournament: Tournament) -> None:
    """Beat disables a one-off task once it has run; started early or cancelled, do it here (the
    row stays, as the record of the schedule; a deleted row would leave beat retrying it)."""
    task = tournament.start_task
    if task is not None and task.enabled:
        task.enabled = False
        task.save(update_fields=["enabled"])  # also tells beat to reload its schedule


def tournaments_tick(*, now: datetime | None = None) -> dict[str, int]:
    """The safety net (beat, every SWEEP_INTERVAL_SECONDS): start what is due, advance every running
    tournament whose round may be over (a lost task), and make the due recurring tournaments."""
    now = now or timezone.now()
    counts = {"started": 0, "advanced": 0, "created": 0}
    due = Tournament.objects.filter(status__in=Tournament.NOT_STARTED, starts_at__lte=now).values_list("pk", flat=True)
    for tournament_id in list(due):
        counts["started"] += tournament_start(tournament_id=tournament_id, now=now).status not in Tournament.NOT_STARTED
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", "round_number")
    for tournament_id, round_number in list(running):
        after = tournament_advance(tournament_id=tournament_id, now=now)
        counts["advanced"] += after.round_number != round_number or after.status != Tournament.Status.RUNNING
    recurring = RecurringTournament.objects.filter(enabled=True, next_run_at__lte=now).values_list("pk", flat=True)
    for recurring_id in list(recurring):
        counts["created"] += recurring_tournament_run(recurring_id=recurring_id, now=now) is not None
    return counts


# --- Recurring tournaments --------------------------------------------------------------------

RECURRING_FIELDS = (
    "name",
    "format",
    "table_size",
    "options",
    "games_per_pairing",
    "duplicate_deals",
    "ruleset",
    "limits",
    "ranked",
    "participation",
    "max_entrants",
    "enabled",
    "every",
    "next_run_at",
    "signup_window",
)


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
    tournament_settings_check(
        format=recurring.format,
        table_size=recurring.table_size,
        options=recurring.options,
        games_per_pairing=recurring.games_per_pairing,
        duplicate_deals=recurring.duplicate_deals,
        ruleset=recurring.ruleset,
        limits=recurring.limits,
    )


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
            format=recurring.format,
            starts_at=starts_at,
            table_size=recurring.table_size,
            options=recurring.options,
            games_per_pairing=recurring.games_per_pairing,
            duplicate_deals=recurring.duplicate_deals,
            ruleset=recurring.ruleset,
            limits=recurring.limits,
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


# --- Reading: rounds, standings after each round, the bracket (for the API and the pages) -------


def _matches_of(tournament: Tournament) -> dict[tuple[int, int], dict[str, Any]]:
    """Each pairing's match: id, status and its games' ids (for replay links), in two queries."""
    found = {
        (row["tournament_round"], row["tournament_table"]): {"id": row["id"], "status": row["status"], "games": []}
        for row in Match.objects.filter(tournament=tournament).values(
            "id", "status", "tournament_round", "tournament_table"
        )
    }
    by_id = {match["id"]: match for match in found.values()}
    for game_id, match_id in (
        Game.objects.filter(match__tournament=tournament).order_by("match_id", "index").values_list("id", "match_id")
    ):
        by_id[match_id]["games"].append(game_id)
    return found


def _labels(state: formats.TournamentState) -> dict[int, str]:
    return {entrant.id: entrant.name for entrant in state.entrants}


def tournament_rounds(tournament: Tournament) -> list[dict[str, Any]]:
    """Every round so far: each table's entrants in seat order, its match and, once played, the
    result (entrants best first, with place, points, mean rank and mean score)."""
    if not tournament.state:
        return []
    state = formats.TournamentState.from_dict(tournament.state)
    labels, matches = _labels(state), _matches_of(tournament)
    rounds = []
    for round_ in state.rounds:
        outcomes = {outcome.table: outcome for outcome in round_.outcomes or []}
        tables = []
        for pairing in round_.pairings:
            outcome = outcomes.get(pairing.table)
            tables.append(
                {
                    "table": pairing.table,
                    "slot": pairing.slot,
                    "bye": pairing.bye,
                    "entrants": [{"version": e, "label": labels[e]} for e in pairing.entrants],
                    "match": matches.get((pairing.round, pairing.table)),
                    "result": None
                    if outcome is None
                    else [result.to_dict() | {"label": labels[result.entrant]} for result in outcome.results],
                }
            )
        rounds.append({"round": round_.number, "played": round_.outcomes is not None, "tables": tables})
    return rounds


def tournament_standings(tournament: Tournament) -> list[dict[str, Any]]:
    """The standings after each played round (the last one is the final table once finished)."""
    if not tournament.state:
        return []
    state = formats.TournamentState.from_dict(tournament.state)
    labels = _labels(state)
    tables = []
    for count, round_ in enumerate(state.played_rounds(), start=1):
        partial = formats.TournamentState(
            format=state.format,
            options=state.options,
            entrants=state.entrants,
            seed=state.seed,
            rounds=state.rounds[:count],
        )
        rows = [row.to_dict() | {"label": labels[row.entrant]} for row in formats.standings(partial)]
        tables.append({"round": round_.number, "rows": rows})
    return tables


def tournament_bracket(tournament: Tournament) -> dict[str, Any] | None:
    """The elimination bracket (``formats.bracket_json``) with each bracket match's platform
    match (id, status, games); None for round robin and Swiss, or before the start."""
    if not tournament.state or not tournament.is_elimination:
        return None
    state = formats.TournamentState.from_dict(tournament.state)
    bracket = formats.bracket_json(state)
    if bracket is None:
        return None
    slots = {pairing.slot: (pairing.round, pairing.table) for round_ in state.rounds for pairing in round_.pairings}
    matches = _matches_of(tournament)
    for match in bracket["matches"]:
        key = slots.get(match["id"])
        match["round_played"] = None if key is None else key[0]
        match["match"] = None if key is None else matches.get(key)
    return bracket
