"""The ratings domain: the live Elo of each bot version, every change as an event in the canonical
order, and the ledger row the one rating writer locks."""

from __future__ import annotations

from django.db import models

from bots.models import BotVersion

from .matches import Match


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


class RatingFitRun(models.Model):
    """One whole-history fit of a ruleset and rules version (services/ratings_fit.py): what it
    read and what it wrote. Its RatingFit rows replace the previous run's in one transaction."""

    ruleset = models.CharField(max_length=20)
    rules_version = models.CharField(max_length=20)
    fitted_at = models.DateTimeField()
    games = models.PositiveIntegerField()
    versions = models.PositiveIntegerField()  # rated in the fit: those of the main component
    disconnected = models.PositiveIntegerField(default=0)  # versions that never met the main component
    interval = models.CharField(max_length=30)  # "curvature", or "curvature-diagonal" for large pools
    prior_elo = models.FloatField(null=True, blank=True)
    seconds = models.FloatField()  # reading the games and fitting them

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["ruleset", "rules_version", "-id"], name="rating_fit_run_latest")]

    def __str__(self) -> str:
        return f"fit {self.pk} {self.ruleset} {self.rules_version}"


class RatingFit(models.Model):
    """The whole-history rating of one version in one ruleset (and rules version), with its 95%
    interval [low, high] and the ranks that interval allows among the versions fitted with it."""

    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="rating_fits")
    ruleset = models.CharField(max_length=20)
    rules_version = models.CharField(max_length=20)
    run = models.ForeignKey(RatingFitRun, on_delete=models.CASCADE, related_name="fits")
    rating = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    games = models.PositiveIntegerField()
    rank_best = models.PositiveIntegerField()
    rank_worst = models.PositiveIntegerField()
    fitted_at = models.DateTimeField()

    class Meta:
        ordering = ["ruleset", "-low"]
        constraints = [
            # Also the leaderboard's join from its Rating row.
            models.UniqueConstraint(fields=["version", "ruleset", "rules_version"], name="unique_rating_fit"),
        ]

    def __str__(self) -> str:
        return f"{self.version_id} {self.ruleset}: {self.rating:.1f} [{self.low:.1f}, {self.high:.1f}]"
