"""The tournaments domain: what a tournament plays (shared with the recurring template that makes
them), a tournament's whole state, and its entries."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models

from bots.models import BotVersion
from lineit import formats


class TournamentSettings(models.Model):
    """What a tournament plays; shared by a tournament and the recurring template that makes them.

    ``format`` names a format registered in lineit.formats (its choices are the registry's when
    the model is defined: makemigrations compares them with the migrations'); ``options`` holds
    the format's own options (``rounds``, ``cycles``, ``advance``, ``grand_final_reset``: see
    lineit/formats/model.py); the rest are columns.
    """

    class Participation(models.TextChoices):
        CHOSEN = "chosen", "chosen versions"
        OPEN = "open", "open sign-up"
        ALL_ACTIVE = "all-active", "every active version"

    name = models.CharField(max_length=100)
    format = models.CharField(max_length=12, choices=list(formats.FORMAT_CHOICES))
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

    @property
    def format_spec(self) -> formats.TournamentFormat:
        """Its format as registered: label, options, tie-breaks, whether it has a bracket."""
        return formats.get_format(self.format)

    def play_settings(self) -> dict[str, Any]:
        """What it plays, as ``tournament_settings_check`` and ``tournament_create`` take it: every
        setting but the name, whether it is ranked, who enters and how many."""
        return {
            "format": self.format,
            "table_size": self.table_size,
            "options": self.options,
            "games_per_pairing": self.games_per_pairing,
            "duplicate_deals": self.duplicate_deals,
            "ruleset": self.ruleset,
            "limits": self.limits,
        }


# What a tournament and a recurring tournament share, in declaration order: the forms, the
# services and the API list these names from here.
TOURNAMENT_SETTINGS = tuple(field.name for field in TournamentSettings._meta.fields)


class TournamentQuerySet(models.QuerySet["Tournament"]):
    def locked(self, pk: int) -> Tournament:
        """The tournament, its row locked until the transaction ends (every step of a tournament
        runs under it, so two tasks, or a task and the tick, never step it at once)."""
        return self.select_for_update().get(pk=pk)


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

    objects = TournamentQuerySet.as_manager()

    class Meta:
        ordering = ["-starts_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["recurring", "occurrence"], name="unique_recurring_occurrence"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"


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
