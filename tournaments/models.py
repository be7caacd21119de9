"""Matches, their games and failures, and the ratings they produce."""

from __future__ import annotations

import json
import zlib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models

from bots.models import BotVersion
from lineit.botkit.failures import public_replay


class MatchQuerySet(models.QuerySet["Match"]):
    def pending(self) -> MatchQuerySet:
        return self.filter(status__in=Match.PENDING)


class Match(models.Model):
    """A state machine in the database: queued -> running -> finished | failed, or cancelled.

    A running match whose worker died goes back to queued (or to failed after
    ``max_attempts``). Celery only ever carries the id.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"
        CANCELLED = "cancelled"

    class Origin(models.TextChoices):
        MANUAL = "manual"
        LADDER = "ladder"
        TOURNAMENT = "tournament"

    PENDING = (Status.QUEUED, Status.RUNNING)

    ruleset = models.CharField(max_length=20)
    rules_version = models.CharField(max_length=20)
    num_players = models.PositiveSmallIntegerField()
    games = models.PositiveIntegerField()
    duplicate_deals = models.BooleanField(default=True)
    rotate_seats = models.BooleanField(default=True)
    seed = models.BigIntegerField()
    ranked = models.BooleanField(default=False)
    limits = models.JSONField(default=dict)
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.MANUAL)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="matches"
    )

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    max_attempts = models.PositiveIntegerField(default=3)
    worker = models.CharField(max_length=200, blank=True)
    sandbox_tier = models.CharField(max_length=32, blank=True)
    error = models.TextField(blank=True)
    games_played = models.PositiveIntegerField(default=0)  # progress of the current attempt

    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Set once the rating writer has dealt with this match (applied, or nothing to apply).
    rated_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # A tournament's match: the pairing at table ``tournament_table`` of round ``tournament_round``.
    tournament = models.ForeignKey(
        "Tournament", null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    tournament_round = models.PositiveIntegerField(null=True, blank=True)
    tournament_table = models.PositiveIntegerField(null=True, blank=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["ranked", "rated_at", "id"], name="match_rating_queue")]
        constraints = [
            # One match per pairing: a task that pairs a round twice cannot create it twice.
            models.UniqueConstraint(
                fields=["tournament", "tournament_round", "tournament_table"], name="unique_tournament_table"
            ),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.status})"

    @property
    def is_pending(self) -> bool:
        return self.status in self.PENDING


class MatchEntrant(models.Model):
    """Entrant ``index`` of a match: one bot version, and its totals once the match is over."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="entrants")
    index = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="entries")
    total_score = models.IntegerField(null=True, blank=True)
    mean_rank = models.FloatField(null=True, blank=True)
    wins = models.PositiveIntegerField(null=True, blank=True)
    forfeits = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "index"]
        constraints = [models.UniqueConstraint(fields=["match", "index"], name="unique_entrant_index")]
        # The matches of a version (or a bot), newest first: the API's match list filters.
        indexes = [models.Index(fields=["version", "match"], name="entrant_version_match")]

    def __str__(self) -> str:
        return f"{self.match_id}#{self.index} {self.version_id}"


def compress_replay(document: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 6)


def decompress_replay(blob: bytes) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(zlib.decompress(bytes(blob)))
    return document


class Game(models.Model):
    """One game of a match: who sat where, scores, ranks and the replay (zlib-compressed JSON in
    the engine's replay format)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="game_logs")
    index = models.PositiveIntegerField()
    deal = models.PositiveIntegerField()
    deck_seed = models.BigIntegerField()
    seats = models.JSONField()  # entrant index per seat
    scores = models.JSONField()  # per seat
    ranks = models.JSONField()  # per seat, forfeits last
    forfeits = models.JSONField(default=list)  # seats
    timings = models.JSONField(default=list)  # per seat: decisions, total_seconds, max_seconds
    replay = models.BinaryField()

    class Meta:
        ordering = ["match", "index"]
        constraints = [models.UniqueConstraint(fields=["match", "index"], name="unique_game_index")]

    def __str__(self) -> str:
        return f"match {self.match_id} game {self.index}"

    def replay_document(self) -> dict[str, Any]:
        """The replay as anyone may read it (every reader of a stored replay comes through here):
        failures with their kind, seat, game and decision only, whatever an older replay holds."""
        return public_replay(decompress_replay(self.replay))


class GameFailure(models.Model):
    """What went wrong with one seat in one game. The kind and the decision are public; the
    message and the stderr tail are the bot's own text, for its owner (and staff) only."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="failures")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="failures")
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="failures")
    seat = models.SmallIntegerField()
    kind = models.CharField(max_length=20, db_index=True)
    message = models.TextField()
    decision = models.IntegerField(default=-1)
    stderr_tail = models.TextField(blank=True)

    class Meta:
        ordering = ["match", "game__index", "seat"]

    def __str__(self) -> str:
        return f"{self.kind} in match {self.match_id}"

    def public_dict(self, viewer: object = None) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "kind": self.kind, "decision": self.decision}
        if self.version.visible_details_for(viewer):
            data["message"] = self.message
            data["stderr_tail"] = self.stderr_tail
        return data


class Rating(models.Model):
    """The live Elo of one bot version in one ruleset (and rules version)."""

    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="ratings")
    ruleset = models.CharField(max_length=20)
    rules_version = models.CharField(max_length=20)
    rating = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["ruleset", "-rating"]
        constraints = [
            models.UniqueConstraint(fields=["version", "ruleset", "rules_version"], name="unique_rating"),
        ]
        indexes = [
            # The leaderboard: one ruleset and rules version, best first, read a page at a time.
            models.Index(fields=["ruleset", "rules_version", "-rating", "version"], name="rating_leaderboard"),
        ]

    def __str__(self) -> str:
        return f"{self.version_id} {self.ruleset}: {self.rating:.1f}"


class RatingEvent(models.Model):
    """One change of one rating, applied in the canonical order (match id, game index)."""

    key = models.CharField(max_length=80, unique=True)  # "<match>:<game>:<version>"
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_events")
    game_index = models.PositiveIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="rating_events")
    ruleset = models.CharField(max_length=20)
    rules_version = models.CharField(max_length=20)
    before = models.FloatField()
    after = models.FloatField()
    delta = models.FloatField()
    k = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.key


class RatingLedger(models.Model):
    """A single row locked by the one rating writer (SELECT ... FOR UPDATE)."""

    name = models.CharField(max_length=20, unique=True, default="elo")
    applied_matches = models.PositiveIntegerField(default=0)
    recomputed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name


# --- Tournaments ----------------------------------------------------------------------------------


class TournamentSettings(models.Model):
    """What a tournament plays; shared by a tournament and the recurring template that makes them.

    ``options`` holds the format's own options (``rounds``, ``cycles``, ``advance``,
    ``grand_final_reset``: see lineit/formats/model.py); the rest are columns.
    """

    class Format(models.TextChoices):
        ROUND_ROBIN = "round-robin", "round robin"
        SWISS = "swiss", "Swiss"
        SINGLE = "single", "single elimination"
        DOUBLE = "double", "double elimination"

    class Participation(models.TextChoices):
        CHOSEN = "chosen", "chosen versions"
        OPEN = "open", "open sign-up"
        ALL_ACTIVE = "all-active", "every active version"

    FORMAT_OPTIONS = ("rounds", "cycles", "advance", "grand_final_reset")

    name = models.CharField(max_length=100)
    format = models.CharField(max_length=12, choices=Format.choices)
    table_size = models.PositiveSmallIntegerField(default=2)
    options = models.JSONField(default=dict, blank=True)
    games_per_pairing = models.PositiveIntegerField(default=8)
    duplicate_deals = models.BooleanField(default=True)
    ruleset = models.CharField(max_length=20, default="standard")
    limits = models.JSONField(default=dict, blank=True)
    ranked = models.BooleanField(default=False)
    participation = models.CharField(max_length=10, choices=Participation.choices, default=Participation.CHOSEN)
    max_entrants = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        abstract = True


# What a tournament and a recurring tournament share, in declaration order: the forms, the
# services and the API list these names from here.
TOURNAMENT_SETTINGS = tuple(field.name for field in TournamentSettings._meta.fields)


class Tournament(TournamentSettings):
    """scheduled | open -> running -> finished, or cancelled.

    ``state`` is the whole tournament as the formats package sees it (TournamentState.to_dict):
    entrants by seed, every round's pairings and outcomes. ``round_number`` is the round being
    played (or the last one, once finished). Only tournaments/services/tournaments/ changes them.
    """

    class Status(models.TextChoices):
        SCHEDULED = "scheduled"
        OPEN = "open", "open for sign-up"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    NOT_STARTED = (Status.SCHEDULED, Status.OPEN)

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED, db_index=True)
    seed = models.BigIntegerField()
    starts_at = models.DateTimeField(db_index=True)
    signup_deadline = models.DateTimeField(null=True, blank=True)
    state = models.JSONField(null=True, blank=True)
    round_number = models.PositiveIntegerField(default=0)
    note = models.TextField(blank=True)  # why it was cancelled, what was dropped at the start
    recurring = models.ForeignKey(
        "RecurringTournament", null=True, blank=True, on_delete=models.SET_NULL, related_name="tournaments"
    )
    occurrence = models.DateTimeField(null=True, blank=True)  # the recurring slot it was made for
    start_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournaments"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["recurring", "occurrence"], name="unique_recurring_occurrence"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"

    @property
    def is_elimination(self) -> bool:
        return self.format in (self.Format.SINGLE, self.Format.DOUBLE)


class TournamentEntry(models.Model):
    """One entrant. With open sign-up a bot may enter without a version: its newest active version
    is frozen in at the start. ``seed`` is set at the start; an entry that cannot be frozen
    (no active version left) stays unfrozen and ``dropped`` says why."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey("bots.Bot", on_delete=models.PROTECT, related_name="tournament_entries")
    version = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="tournament_entries"
    )
    seed = models.PositiveIntegerField(null=True, blank=True)
    frozen = models.BooleanField(default=False)
    dropped = models.CharField(max_length=200, blank=True)
    signed_up_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "seed", "id"]
        verbose_name_plural = "tournament entries"
        constraints = [
            models.UniqueConstraint(fields=["tournament", "version"], name="unique_tournament_version"),
            models.UniqueConstraint(
                fields=["tournament", "bot"],
                condition=models.Q(version__isnull=True),
                name="unique_tournament_open_bot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id}: {self.version or self.bot}"


class RecurringTournament(TournamentSettings):
    """A template that makes a tournament every ``every`` from ``next_run_at`` (UTC): for example a
    weekly Swiss of every active version. The tournaments tick (django-celery-beat) makes the
    tournament once ``next_run_at`` has passed; it starts ``signup_window`` later."""

    enabled = models.BooleanField(default=True)
    every = models.DurationField()
    next_run_at = models.DateTimeField()
    signup_window = models.DurationField(default=timedelta(0))
    last_run_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return f"{self.name} (every {self.every})"
