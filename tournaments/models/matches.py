"""The matches domain: a match is a state machine in the database, its entrants, its games (each
with its replay) and the failures of its bots."""

from __future__ import annotations

import json
import zlib
from typing import Any

from django.conf import settings
from django.db import models

from bots.models import BotVersion
from lineit.botkit.failures import public_replay


class MatchQuerySet(models.QuerySet["Match"]):
    def pending(self) -> MatchQuerySet:
        return self.filter(status__in=Match.PENDING)

    def played_by_version(self, version_id: int) -> MatchQuerySet:
        """The matches in which this version played (each once, however many seats it had)."""
        return self.filter(_IdAmong(models.F("pk"), MatchEntrant.objects.filter(version_id=version_id)))

    def played_by_bot(self, bot_id: int) -> MatchQuerySet:
        """The matches in which any version of this bot played."""
        return self.filter(_IdAmong(models.F("pk"), MatchEntrant.objects.filter(version__bot_id=bot_id)))


class _IdAmong(models.Func):
    """``id = ANY(ARRAY(SELECT match_id FROM <the entrants>))`` on PostgreSQL, ``id IN (...)``
    elsewhere: the matches of some entrants, newest first, a page at a time.

    As ``IN (SELECT ...)``, PostgreSQL walks the matches from the newest and looks each one up
    among the entrants: ten thousand rows for a page of a version that plays one match in five
    hundred, the whole table for one that stopped playing. As an array, it reads the entrants'
    match ids from their (version, match) index, then only the page's matches by key, in order."""

    output_field = models.BooleanField()

    def __init__(self, match_id: models.F, entrants: models.QuerySet[MatchEntrant]) -> None:
        # No order: the entrants' Meta ordering would join the matches and read the entrants' rows.
        super().__init__(match_id, models.Subquery(entrants.order_by().values("match_id")))

    def as_sql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list[Any]]:
        match_id, entrants = (compiler.compile(expression) for expression in self.get_source_expressions())
        return f"{match_id[0]} IN {entrants[0]}", [*match_id[1], *entrants[1]]

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list[Any]]:
        match_id, entrants = (compiler.compile(expression) for expression in self.get_source_expressions())
        return f"{match_id[0]} = ANY(ARRAY{entrants[0]})", [*match_id[1], *entrants[1]]


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
        MANUAL = "manual"  # a test match someone requested
        LADDER = "ladder"
        TOURNAMENT = "tournament"
        PLACEMENT = "placement"  # a new version's first rated games
        SPRT = "sprt", "SPRT"  # a new version against the previous one, until a sequential test decides

    PENDING = (Status.QUEUED, Status.RUNNING)
    # Origins someone waits for: sent to the interactive queue, the others to the bulk queue
    # (tournaments/services/matches/states.py: match_queue; docs/platform.md, "Queues").
    INTERACTIVE_ORIGINS = frozenset({Origin.MANUAL, Origin.PLACEMENT, Origin.SPRT})

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
    # Each entrant's version and totals, in index order: what a list of matches shows of its
    # entrants, read from the match's own row. Written by the services that change the entrants
    # (match_schedule, match_finish: services/matches/); the MatchEntrant rows stay the
    # record and what filters by version or bot read.
    entrant_summary = models.JSONField(default=list, blank=True)
    # How many failures its games recorded (GameFailure rows): written with them, once, by
    # match_finish; a match's detail reads the failures only when there are some.
    failure_count = models.PositiveIntegerField(default=0, db_default=0)

    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Set once the rating writer has dealt with this match (applied, or nothing to apply).
    rated_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Its place in the ratings' canonical order, given by the writer as it applies the match: id
    # order, except that a match that kept the writer waiting longer than RATINGS_WAIT_SECONDS
    # comes after the ones it was passed over for (services/ratings.py). The recompute folds
    # matches in this order, so it reproduces the live table whatever happened.
    rating_order = models.PositiveBigIntegerField(null=True, blank=True, unique=True)
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


class LiveGame(models.Model):
    """A game of a running match, kept from when it ends until the match ends: what its page lets
    one watch while the rest is played. Written by the worker as each game ends (one row per game
    of the current attempt, ``attempt``); the Game rows, written once with the whole result, stay
    the record, and these are removed when the match ends or is claimed again."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="live_games")
    attempt = models.PositiveIntegerField()
    index = models.PositiveIntegerField()
    seats = models.JSONField()  # entrant index per seat
    scores = models.JSONField()  # per seat
    ranks = models.JSONField()  # per seat
    replay = models.BinaryField()  # as Game.replay
    ended_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "index"]
        constraints = [models.UniqueConstraint(fields=["match", "attempt", "index"], name="unique_live_game")]

    def __str__(self) -> str:
        return f"match {self.match_id} game {self.index} (being played)"

    def replay_document(self) -> dict[str, Any]:
        """The replay as anyone may read it, as Game.replay_document."""
        return public_replay(decompress_replay(self.replay))


class MatchChunk(models.Model):
    """A part of a match: its games ``first`` to ``stop - 1`` (whole deals), played by one worker
    at a time as one run of the sandbox and recorded as it ends, so that several workers play one
    match at once and a fault plays one chunk again, not the match (services/matches/chunks.py,
    docs/platform.md "Chunks"). ``stopped`` are the entrants stopped from its first game (their
    games forfeited: a re-plan after a bot reached its failure limit in an earlier chunk).
    ``result`` holds its games (zlib-compressed JSON) from when it ends until the match is
    recorded; the row stays afterwards as the record of who played what and how often."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    first = models.PositiveIntegerField()
    stop = models.PositiveIntegerField()
    stopped = models.JSONField(default=list, blank=True)  # entrant indices
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.BinaryField(null=True, blank=True)

    class Meta:
        ordering = ["match", "first"]
        constraints = [models.UniqueConstraint(fields=["match", "index"], name="unique_chunk_index")]

    def __str__(self) -> str:
        return f"match {self.match_id} games {self.first + 1}-{self.stop} ({self.status})"

    @property
    def games(self) -> int:
        return self.stop - self.first


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
