"""The SPRT domain: "is a bot's new version better than its previous one?", answered by deal pairs
played new against old, unranked, until the sequential test of ``lineit sprt``
(lineit/stats/sprt.py) decides. A test plays one batch match at a time; each one's games are
folded into the counts below by tournaments/services/sprt.py, which writes every field here."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from bots.models import Bot, BotVersion

from .matches import Match


class SprtTestQuerySet(models.QuerySet["SprtTest"]):
    def running(self) -> SprtTestQuerySet:
        return self.filter(status=SprtTest.Status.RUNNING)


class SprtTest(models.Model):
    """A sequential test of ``new_version`` against ``old_version`` (same bot): running until H1,
    H0, or ``max_games`` (undecided); cancelled when a version is retired or replaced, by its
    owner, or when a batch match could not be played (``reason`` says which)."""

    class Status(models.TextChoices):
        RUNNING = "running"
        H1 = "h1"  # the new version is better (by about elo1 or more)
        H0 = "h0"  # it is not (better by about elo0 at most)
        UNDECIDED = "undecided"  # max_games reached first
        CANCELLED = "cancelled"

    ENDED = (Status.H1, Status.H0, Status.UNDECIDED, Status.CANCELLED)

    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="sprt_tests")
    new_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="sprt_tests_as_new")
    old_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="sprt_tests_as_old")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="sprt_tests"
    )
    ruleset = models.CharField(max_length=20)
    # The test's parameters (lineit.stats.sprt.Bounds) and its schedule: batches of
    # ``batch_games`` games (whole deal pairs), batch i played with the seed
    # lineit.stats.sprt.batch_seed(seed, i), as `lineit sprt --seed <seed> --batch <batch_games>`.
    elo0 = models.FloatField()
    elo1 = models.FloatField()
    alpha = models.FloatField()
    beta = models.FloatField()
    batch_games = models.PositiveIntegerField()
    max_games = models.PositiveIntegerField()
    seed = models.BigIntegerField()

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING, db_index=True)
    reason = models.TextField(blank=True)  # why it was cancelled
    # What the folded batches say, written with each batch (services/sprt.py: sprt_record_match).
    batches = models.PositiveIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    # Deal pairs by the new version's points over the pair's two games: 0, 0.5, 1, 1.5, 2
    # (lineit.stats.sprt.Sprt.counts, the pentanomial counts).
    pair_counts = models.JSONField(default=list)
    # Deal pairs left out because the platform failed in one of their games (a sandbox that did
    # not start): a platform failure is never held against a bot.
    pairs_left_out = models.PositiveIntegerField(default=0)
    failures_new = models.PositiveIntegerField(default=0)  # games forfeited by each version (losses)
    failures_old = models.PositiveIntegerField(default=0)
    score = models.FloatField(default=0.5)  # the new version's mean score a game
    llr = models.FloatField(default=0.0)
    llr_lower = models.FloatField()
    llr_upper = models.FloatField()
    # The new version's Elo over the old and its 95% interval; null where infinite (elo: score
    # 0 or 1; elo_low: unbounded below; elo_high: unbounded above) or before any pair.
    elo = models.FloatField(null=True, blank=True)
    elo_low = models.FloatField(null=True, blank=True)
    elo_high = models.FloatField(null=True, blank=True)

    # The batch being played, and how many matches it has been tried in (a failed or cancelled
    # match is tried again, up to SPRT_BATCH_ATTEMPTS).
    current_match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    batch_attempts = models.PositiveIntegerField(default=0)
    matches = models.ManyToManyField(Match, blank=True, related_name="sprt_tests")

    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = SprtTestQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["bot"], condition=Q(status="running"), name="one_running_sprt_per_bot"),
        ]
        indexes = [models.Index(fields=["new_version", "id"], name="sprt_new_version")]

    def __str__(self) -> str:
        return f"SPRT {self.pk} ({self.status})"

    @property
    def is_running(self) -> bool:
        return self.status == self.Status.RUNNING

    @property
    def pairs(self) -> int:
        return sum(self.pair_counts)

    @property
    def live_state(self) -> str:
        """Changes when a batch is folded in or the test ends: what a live page polls for."""
        return f"{self.status}:{self.batches}"


class BotSprtSetting(models.Model):
    """Whether a bot's new versions are tested against the previous one when they become active.
    No row: yes (the default)."""

    bot = models.OneToOneField(Bot, on_delete=models.CASCADE, primary_key=True, related_name="sprt_setting")
    test_new_versions = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"{self.bot_id}: {'on' if self.test_new_versions else 'off'}"
