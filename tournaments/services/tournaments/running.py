"""Running a tournament: start it, play it round by round, finish or cancel it, and the tick.

``tournament_start`` freezes the entries (seeded by rating) and creates the first round's matches;
``tournament_advance`` records a round once every match of it has ended (a failed or cancelled
match is a tie between its table) and pairs the next one, or finishes. Each step locks the
tournament's row and checks its status first, so running it twice changes nothing; the pairing
runs between two such locked steps, with the row unlocked, and is written only if the state it
was paired from is still the tournament's.
``tournaments_tick`` is the periodic safety net that starts, advances and makes what is due.
"""

from __future__ import annotations

import contextlib
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from bots.models import BotVersion
from lineit import formats
from lineit.engine import RULES_VERSION
from lineit_platform.errors import Conflict

from ...models import Match, Rating, RecurringTournament, Tournament, TournamentEntry
from ...signals import tournament_finished
from ..matches.states import match_cancel, match_schedule, ranked_while_active
from .creation import tournament_options
from .recurring import recurring_tournament_run

# --- Starting ---------------------------------------------------------------------------------


def tournament_start(*, tournament_id: int, now: datetime | None = None, force: bool = False) -> Tournament:
    """Freeze the entries, seed them by rating and create the first round's matches. Does nothing
    before ``starts_at`` (unless ``force``: "start now") or once started.

    As in ``tournament_advance``, the first round is paired with the row unlocked: the entries
    are frozen under the lock, paired without it, and the round is written under the lock only if
    freezing them again there gives the same entrants (else they are paired again)."""
    now = now or timezone.now()
    while True:
        with transaction.atomic():
            tournament = Tournament.objects.locked(tournament_id)
            if tournament.status not in Tournament.NOT_STARTED or (not force and tournament.starts_at > now):
                return tournament
            entrants = _freeze_entries(tournament)
        try:  # no lock held here
            state: formats.TournamentState | formats.FormatError = _pair_ahead(
                formats.first_round(tournament.format, entrants, tournament_options(tournament), tournament.seed)
            )
        except formats.FormatError as error:
            state = error
        with transaction.atomic():
            tournament = Tournament.objects.locked(tournament_id)
            if tournament.status not in Tournament.NOT_STARTED:
                return tournament
            if _freeze_entries(tournament) == entrants:
                return _start(tournament, entrants, state, now)


def _start(
    tournament: Tournament,
    entrants: list[formats.Entrant],
    state: formats.TournamentState | formats.FormatError,
    now: datetime,
) -> Tournament:
    if isinstance(state, formats.FormatError):
        return _cancel(tournament, note=f"could not start with {len(entrants)} entrants: {state}", now=now)
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


def _pair_ahead(state: formats.TournamentState) -> formats.TournamentState:
    """Pass over rounds of byes only (pairing each next round): no lock needs to be held."""
    while state.pending is not None and all(pairing.bye for pairing in state.pending.pairings):
        state = formats.next_round(state, [])
    return state


def _play(tournament: Tournament, state: formats.TournamentState, now: datetime) -> formats.TournamentState:
    """Create the pending round's matches (those missing), or finish when no round is pending.
    The state's rounds of byes only have been passed over already (``_pair_ahead``)."""
    if state.pending is None:
        tournament.status = Tournament.Status.FINISHED
        tournament.finished_at = now
        tournament_finished.send(sender=Tournament, tournament_id=tournament.pk)  # its entrants' owners are told
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
            # a seed of its own, drawn now, not the pairing's (derived from the tournament's
            # seed, which the API shows while entrants may still sign up): no deck is known
            # before its match is scheduled (docs/bot-interface.md, "One deal, one process")
            seed=None,
            duplicate_deals=tournament.duplicate_deals,
            ranked=ranked_while_active(tournament.ranked, seated),  # one retired during it plays, unranked
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


def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> Tournament:
    """When every match of the pending round has ended, record the round and pair the next one
    (or finish). Otherwise, and when called again, nothing changes.

    The pairing (a second or so for a Swiss of 1,024 entrants) runs with the tournament's row
    unlocked: the round is read under the lock, paired without it, and written under the lock
    only if the tournament is still at the round it was paired from; otherwise it is read again
    (another advance got there first, and this one then finds nothing to do)."""
    now = now or timezone.now()
    while True:
        with transaction.atomic():
            tournament, state, outcomes = _round_to_pair(tournament_id, now)
        if state is None:
            return tournament
        paired = _pair_ahead(formats.next_round(state, outcomes))  # no lock held here
        with transaction.atomic():
            current = Tournament.objects.locked(tournament_id)
            if current.status == Tournament.Status.RUNNING and current.state == tournament.state:
                _save_state(current, _play(current, paired, now), now)
                return current


def _round_to_pair(
    tournament_id: int, now: datetime
) -> tuple[Tournament, formats.TournamentState | None, list[formats.MatchOutcome]]:
    """Under the tournament's lock: the state and the outcomes of a round that is over and must
    be paired on from, or no state when there is nothing to pair (what little else there is to
    do, finishing or recreating missing matches, is done here)."""
    tournament = Tournament.objects.locked(tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        return tournament, None, []
    state = formats.TournamentState.from_dict(tournament.state)
    pending = state.pending
    if pending is None:  # cannot happen: finishing and the last round are saved together
        tournament.status, tournament.finished_at = Tournament.Status.FINISHED, now
        _save_state(tournament, state, now)
        return tournament, None, []
    matches = {
        match.tournament_table: match
        for match in Match.objects.filter(tournament=tournament, tournament_round=pending.number)
    }
    playing = [pairing for pairing in pending.pairings if not pairing.bye]
    if any(pairing.table not in matches for pairing in playing):
        _save_state(tournament, _play(tournament, state, now), now)  # recreate what is missing
        return tournament, None, []
    if any(matches[pairing.table].is_pending for pairing in playing):
        return tournament, None, []
    return tournament, state, [_outcome(pairing, matches[pairing.table]) for pairing in playing]


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
    tournament = Tournament.objects.locked(tournament.pk)
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
