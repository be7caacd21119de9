"""Matches, their games and failures, and the ratings they produce."""

from __future__ import annotations

import json
import zlib
from typing import Any

from django.conf import settings
from django.db import models

from bots.models import BotVersion


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

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["ranked", "rated_at", "id"], name="match_rating_queue")]

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
        return decompress_replay(self.replay)


class GameFailure(models.Model):
    """What went wrong with one seat in one game. The stderr tail is for the bot's owner only."""

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
        data = {"seat": self.seat, "kind": self.kind, "message": self.message, "decision": self.decision}
        if self.version.visible_details_for(viewer):
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
