"""What the API shows and accepts. Serializers only shape data: writes go through the services,
and whether a viewer may see a private field is asked of ``permissions.may_manage``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bots.models import BOT_NAME_PATTERN, Bot, BotVersion
from lineit_platform.engine import RULESETS, STANDARD
from lineit_platform.ratings import PROVISIONAL_GAMES
from tournaments.models import Game, GameFailure, Match, MatchEntrant, Rating, RatingEvent, Tournament, TournamentEntry

from .filters import MAX_ID
from .permissions import may_manage


def _viewer(serializer: serializers.Field) -> Any:
    request = serializer.context.get("request")
    return getattr(request, "user", None)


_PLACEHOLDER = 987654321987654321


def _absolute(serializer: serializers.Field, name: str, pk: int) -> str:
    """The absolute URL of ``name`` for ``pk``; reversed once per serializer (lists make many)."""
    templates = serializer.context.setdefault("url_templates", {})
    template = templates.get(name)
    if template is None:
        path = reverse(name, args=[_PLACEHOLDER])
        request = serializer.context.get("request")
        template = (request.build_absolute_uri(path) if request is not None else path).replace(str(_PLACEHOLDER), "{}")
        templates[name] = template
    return str(template).format(pk)


# --- Accounts ---------------------------------------------------------------------------------


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, style={"input_type": "password"}, trim_whitespace=False)


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(read_only=True)
    username = serializers.CharField(read_only=True)


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True)
    is_staff = serializers.BooleanField(read_only=True)


# --- Bots and versions ------------------------------------------------------------------------


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    version_count = serializers.IntegerField(read_only=True)
    latest_version = serializers.IntegerField(read_only=True, allow_null=True, help_text="Id of the newest version.")

    class Meta:
        model = Bot
        fields = ["id", "name", "description", "owner", "is_builtin", "created_at", "version_count", "latest_version"]
        read_only_fields = fields


class BotCreateSerializer(serializers.Serializer):
    name = serializers.RegexField(
        BOT_NAME_PATTERN, max_length=40, help_text="2-40 letters, digits, '.', '_' or '-'; unique."
    )
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class ValidationReportSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=BotVersion.Status.choices)
    finished_at = serializers.DateTimeField(source="validated_at", allow_null=True)
    reason = serializers.CharField(source="rejection_reason", help_text="Why the version was rejected.")
    stderr = serializers.SerializerMethodField(help_text="The bot's stderr (owner and staff only; else null).")
    sandbox_tier = serializers.CharField()

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_stderr(self, version: BotVersion) -> str | None:
        return version.rejection_stderr if may_manage(_viewer(self), version.bot.owner_id) else None


class VersionSerializer(serializers.ModelSerializer):
    bot_name = serializers.CharField(source="bot.name", read_only=True)
    label = serializers.CharField(read_only=True)
    uploaded_by = serializers.CharField(source="uploaded_by.username", read_only=True)
    validation = ValidationReportSerializer(source="*", read_only=True)
    source_url = serializers.SerializerMethodField(help_text="Download of the code (owner and staff only).")

    class Meta:
        model = BotVersion
        fields = [
            "id",
            "bot",
            "bot_name",
            "number",
            "label",
            "status",
            "kind",
            "original_name",
            "size",
            "sha256",
            "uploaded_by",
            "created_at",
            "retired_at",
            "validation",
            "source_url",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_source_url(self, version: BotVersion) -> str | None:
        if not may_manage(_viewer(self), version.bot.owner_id):
            return None
        return _absolute(self, "api-version-source", version.pk)


class VersionUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A .py file, or a .zip package with bot.py at its root.")


# --- Matches and games ------------------------------------------------------------------------

# The match list and the match detail are written by reads.py (plain SQL rows, for speed); the
# match, entrant and detail serializers below declare what it writes (the schema), and
# tests/api/test_fast_reads.py holds the two together.


class EntrantSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version_id", read_only=True)
    label = serializers.CharField(source="version.label", read_only=True)
    bot = serializers.IntegerField(source="version.bot_id", read_only=True)
    bot_name = serializers.CharField(source="version.bot.name", read_only=True)

    class Meta:
        model = MatchEntrant
        fields = ["index", "version", "label", "bot", "bot_name", "total_score", "mean_rank", "wins", "forfeits"]
        read_only_fields = fields


class MatchSerializer(serializers.ModelSerializer):
    requested_by = serializers.CharField(source="requested_by.username", read_only=True, allow_null=True)
    entrants = EntrantSerializer(many=True, read_only=True)
    url = serializers.URLField(read_only=True)

    class Meta:
        model = Match
        fields = [
            "id",
            "url",
            "status",
            "ruleset",
            "rules_version",
            "ranked",
            "origin",
            "num_players",
            "games",
            "games_played",
            "duplicate_deals",
            "rotate_seats",
            "seed",
            "requested_by",
            "error",
            "created_at",
            "started_at",
            "finished_at",
            "entrants",
        ]
        read_only_fields = fields


class FailureSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version_id", read_only=True)
    stderr_tail = serializers.SerializerMethodField(help_text="The bot's stderr (owner and staff only; else null).")

    class Meta:
        model = GameFailure
        fields = ["seat", "version", "kind", "message", "decision", "stderr_tail"]
        read_only_fields = fields

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_stderr_tail(self, failure: GameFailure) -> str | None:
        return failure.stderr_tail if may_manage(_viewer(self), failure.version.bot.owner_id) else None

    def to_representation(self, failure: GameFailure) -> dict[str, Any]:
        # Written out by hand for the speed of long lists; the declared fields stay the schema.
        return {
            "seat": failure.seat,
            "version": failure.version_id,
            "kind": failure.kind,
            "message": failure.message,
            "decision": failure.decision,
            "stderr_tail": self.get_stderr_tail(failure),
        }


class GameSerializer(serializers.ModelSerializer):
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="Entrant index in each seat.")
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="Score of each seat.")
    ranks = serializers.ListField(child=serializers.IntegerField(), help_text="Rank of each seat (1 is first).")
    forfeits = serializers.ListField(child=serializers.IntegerField(), help_text="Seats that forfeited.")
    timings = serializers.ListField(child=serializers.DictField(), help_text="Per seat: decisions and seconds.")
    failures = FailureSerializer(many=True, read_only=True)
    replay_url = serializers.SerializerMethodField()
    verification_url = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = [
            "id",
            "match",
            "index",
            "deal",
            "deck_seed",
            "seats",
            "scores",
            "ranks",
            "forfeits",
            "timings",
            "failures",
            "replay_url",
            "verification_url",
        ]
        read_only_fields = fields

    def to_representation(self, game: Game) -> dict[str, Any]:
        # Written out by hand for the speed of long lists; the declared fields stay the schema.
        failure = FailureSerializer(context=self.context)
        return {
            "id": game.pk,
            "match": game.match_id,
            "index": game.index,
            "deal": game.deal,
            "deck_seed": game.deck_seed,
            "seats": game.seats,
            "scores": game.scores,
            "ranks": game.ranks,
            "forfeits": game.forfeits,
            "timings": game.timings,
            "failures": [failure.to_representation(each) for each in game.failures.all()],
            "replay_url": self.get_replay_url(game),
            "verification_url": self.get_verification_url(game),
        }

    @extend_schema_field(OpenApiTypes.URI)
    def get_replay_url(self, game: Game) -> str:
        return _absolute(self, "api-game-replay", game.pk)

    @extend_schema_field(OpenApiTypes.URI)
    def get_verification_url(self, game: Game) -> str:
        return _absolute(self, "api-game-verification", game.pk)


class MatchDetailSerializer(MatchSerializer):
    game_logs = GameSerializer(many=True, read_only=True)
    limits = serializers.DictField(read_only=True)

    class Meta(MatchSerializer.Meta):
        fields = [*MatchSerializer.Meta.fields, "attempts", "sandbox_tier", "limits", "game_logs"]
        read_only_fields = fields


class MatchRequestSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Your version (entrant 0).")
    opponents = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        min_length=1,
        max_length=4,
        help_text="Versions of any bots (active or retired); one may appear more than once.",
    )
    games = serializers.IntegerField(min_value=1, max_value=settings.API_MATCH_MAX_GAMES)
    ruleset = serializers.ChoiceField(choices=list(RULESETS), default=STANDARD)
    seed = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False, allow_null=True, default=None)
    duplicate_deals = serializers.BooleanField(default=True)
    rotate_seats = serializers.BooleanField(default=True)


class VerificationSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    ok = serializers.BooleanField()
    message = serializers.CharField()
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    ranks = serializers.ListField(child=serializers.IntegerField(), allow_null=True)


# --- Ratings ----------------------------------------------------------------------------------


# The schema of a leaderboard row; reads.leaderboard_rows writes them (the methods below type the
# schema's fields).
class LeaderboardEntrySerializer(serializers.ModelSerializer):
    rank = serializers.SerializerMethodField(help_text="Position in this (filtered) leaderboard, from 1.")
    version = serializers.IntegerField(source="version_id", read_only=True)
    label = serializers.CharField(source="version.label", read_only=True)
    bot = serializers.IntegerField(source="version.bot_id", read_only=True)
    bot_name = serializers.CharField(source="version.bot.name", read_only=True)
    owner = serializers.CharField(source="version.bot.owner.username", read_only=True)
    version_status = serializers.CharField(source="version.status", read_only=True)
    games = serializers.IntegerField(read_only=True, help_text="Rated games played.")
    provisional = serializers.SerializerMethodField(help_text=f"Fewer than {PROVISIONAL_GAMES} rated games.")
    history_url = serializers.SerializerMethodField()

    class Meta:
        model = Rating
        fields = [
            "rank",
            "version",
            "label",
            "bot",
            "bot_name",
            "owner",
            "version_status",
            "ruleset",
            "rules_version",
            "rating",
            "games",
            "provisional",
            "updated_at",
            "history_url",
        ]
        read_only_fields = fields

    def get_rank(self, rating: Rating) -> int:
        return int(self.context["rank_of"][rating.pk])

    def get_provisional(self, rating: Rating) -> bool:
        return rating.games < PROVISIONAL_GAMES

    @extend_schema_field(OpenApiTypes.URI)
    def get_history_url(self, rating: Rating) -> str:
        url = _absolute(self, "api-version-rating-history", rating.version_id)
        return f"{url}?{urlencode({'ruleset': rating.ruleset, 'rules_version': rating.rules_version})}"


class HeadToHeadSerializer(serializers.Serializer):
    """One opponent of a bot: every finished match they played at the same table, ranked or not."""

    opponent = serializers.IntegerField(source="opponent.pk", help_text="The other bot's id.")
    opponent_name = serializers.CharField(source="opponent.name")
    games = serializers.IntegerField(help_text="Games at the same table.")
    wins = serializers.FloatField(help_text="Games this bot ranked better than the other; a shared rank is one half.")
    win_rate = serializers.FloatField()
    win_interval = serializers.ListField(
        child=serializers.FloatField(),
        min_length=2,
        max_length=2,
        source="interval",
        help_text="The win rate's 95% Wilson interval (the games of one duplicate deal are not "
        "independent: read it as a little too narrow).",
    )
    mean_score_difference = serializers.FloatField(help_text="This bot's score minus the other's, per game.")


class RatingEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = RatingEvent
        fields = [
            "id",
            "match",
            "game_index",
            "ruleset",
            "rules_version",
            "before",
            "after",
            "delta",
            "k",
            "created_at",
        ]
        read_only_fields = fields


# --- Tournaments ------------------------------------------------------------------------------


class TournamentSerializer(serializers.ModelSerializer):
    entry_count = serializers.IntegerField(read_only=True)
    options = serializers.DictField(read_only=True)

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "format",
            "status",
            "table_size",
            "options",
            "games_per_pairing",
            "duplicate_deals",
            "ruleset",
            "ranked",
            "participation",
            "max_entrants",
            "seed",
            "starts_at",
            "signup_deadline",
            "round_number",
            "note",
            "created_at",
            "started_at",
            "finished_at",
            "entry_count",
        ]
        read_only_fields = fields


class TournamentEntrySerializer(serializers.ModelSerializer):
    bot_name = serializers.CharField(source="bot.name", read_only=True)
    label = serializers.SerializerMethodField()

    class Meta:
        model = TournamentEntry
        fields = ["id", "bot", "bot_name", "version", "label", "seed", "frozen", "dropped", "created_at"]
        read_only_fields = fields

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_label(self, entry: TournamentEntry) -> str | None:
        return entry.version.label if entry.version_id else None


class TournamentDetailSerializer(TournamentSerializer):
    entries = TournamentEntrySerializer(many=True, read_only=True)
    limits = serializers.DictField(read_only=True)

    class Meta(TournamentSerializer.Meta):
        fields = [*TournamentSerializer.Meta.fields, "limits", "entries"]
        read_only_fields = fields


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    starts_at = serializers.DateTimeField()
    table_size = serializers.IntegerField(min_value=2, max_value=5, default=2)
    options = serializers.DictField(
        required=False, default=dict, help_text="rounds, cycles, advance, grand_final_reset"
    )
    games_per_pairing = serializers.IntegerField(min_value=1, max_value=1000, default=8)
    duplicate_deals = serializers.BooleanField(default=True)
    ruleset = serializers.ChoiceField(choices=list(RULESETS), default=STANDARD)
    ranked = serializers.BooleanField(default=False)
    participation = serializers.ChoiceField(choices=Tournament.Participation.choices, default="chosen")
    versions = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), required=False, default=list, max_length=1000
    )
    signup_deadline = serializers.DateTimeField(required=False, allow_null=True, default=None)
    max_entrants = serializers.IntegerField(
        min_value=2, max_value=100_000, required=False, allow_null=True, default=None
    )
    seed = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False, allow_null=True, default=None)


class TournamentCancelSerializer(serializers.Serializer):
    note = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class TournamentSignUpSerializer(serializers.Serializer):
    bot = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, allow_null=True, default=None)
