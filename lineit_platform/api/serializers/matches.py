"""Matches and games: lists, details (with failures), requests, verification.

Their rows are built by tournaments/selectors/matches.py, the reader the pages share; these
serializers declare the schema and pick its fields from the rows (common.RowWriter)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from lineit.engine import RULESETS, STANDARD
from tournaments.models import Game, GameFailure, Match, MatchEntrant
from tournaments.selectors.matches import GAME_COLUMNS, Row, game_rows, match_rows

from ..filters import MAX_ID
from ..permissions import may_manage
from .common import RowListSerializer, RowWriter, absolute, picked, viewer


# The sources below type the schema's fields; the values are the selectors' rows, picked.
class EntrantSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version_id", read_only=True)
    label = serializers.CharField(source="version.label", read_only=True)
    bot = serializers.IntegerField(source="version.bot_id", read_only=True)
    bot_name = serializers.CharField(source="version.bot.name", read_only=True)

    class Meta:
        model = MatchEntrant
        fields = ["index", "version", "label", "bot", "bot_name", "total_score", "mean_rank", "wins", "forfeits"]
        read_only_fields = fields


ENTRANT_FIELDS = EntrantSerializer.Meta.fields


# A row of selectors.match_list (match_rows builds a page). Docstrings of these serializers are
# the schema's descriptions: their notes are comments.
class MatchSerializer(RowWriter, serializers.ModelSerializer):
    requested_by = serializers.CharField(read_only=True, allow_null=True)
    entrants = EntrantSerializer(many=True, read_only=True)
    url = serializers.URLField(read_only=True)

    class Meta:
        model = Match
        list_serializer_class = RowListSerializer
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

    def build(self, rows: list[Row]) -> list[Row]:
        return match_rows(rows)

    def write(self, row: Row) -> dict[str, Any]:
        return picked(
            row,
            self.Meta.fields,
            url=absolute(self, "api-match-detail", row["id"]),
            entrants=[picked(entrant, ENTRANT_FIELDS) for entrant in row["entrants"]],
        )


class FailureSerializer(serializers.ModelSerializer):
    """A failure: the kind and the decision are public; the message and the stderr tail are the
    bot's own text, for its owner and staff (null for anyone else)."""

    version = serializers.IntegerField(source="version_id", read_only=True)
    message = serializers.SerializerMethodField(
        help_text="What went wrong, in detail; it may quote the bot's own text (owner and staff only; else null)."
    )
    stderr_tail = serializers.SerializerMethodField(help_text="The bot's stderr (owner and staff only; else null).")

    class Meta:
        model = GameFailure
        fields = ["seat", "version", "kind", "message", "decision", "stderr_tail"]
        read_only_fields = fields

    # The types of the schema's two private fields; the rows hold them, None for other viewers.
    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_message(self, failure: Row) -> str | None:
        return failure["message"]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_stderr_tail(self, failure: Row) -> str | None:
        return failure["stderr_tail"]


FAILURE_FIELDS = FailureSerializer.Meta.fields


def reads_text_of(serializer: serializers.Field) -> Any:
    """Whether the viewer may read what the bots of an owner wrote (permissions.may_manage)."""
    return partial(may_manage, viewer(serializer))


# A row of selectors.game_list (game_rows builds a page), or a match detail's game.
class GameSerializer(RowWriter, serializers.ModelSerializer):
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
        list_serializer_class = RowListSerializer
        fields = [*GAME_COLUMNS, "failures", "replay_url", "verification_url"]
        read_only_fields = fields

    def build(self, rows: list[Row]) -> list[Row]:
        return game_rows(rows, reads_text_of=reads_text_of(self))

    def write(self, row: Row) -> dict[str, Any]:
        return picked(
            row,
            self.Meta.fields,
            failures=[picked(failure, FAILURE_FIELDS) for failure in row["failures"]],
            replay_url=self.get_replay_url(row),
            verification_url=self.get_verification_url(row),
        )

    @extend_schema_field(OpenApiTypes.URI)
    def get_replay_url(self, game: Row) -> str:
        return absolute(self, "api-game-replay", game["id"])

    @extend_schema_field(OpenApiTypes.URI)
    def get_verification_url(self, game: Row) -> str:
        return absolute(self, "api-game-verification", game["id"])


# A match detail as selectors.match_detail builds it.
class MatchDetailSerializer(MatchSerializer):
    game_logs = GameSerializer(many=True, read_only=True)
    limits = serializers.DictField(read_only=True)

    class Meta(MatchSerializer.Meta):
        fields = [*MatchSerializer.Meta.fields, "attempts", "sandbox_tier", "limits", "game_logs"]
        read_only_fields = fields

    def build(self, rows: list[Row]) -> list[Row]:
        return rows  # built whole by match_detail

    def write(self, row: Row) -> dict[str, Any]:
        game = GameSerializer(context=self.context)
        return picked(
            row,
            self.Meta.fields,
            url=absolute(self, "api-match-detail", row["id"]),
            entrants=[picked(entrant, ENTRANT_FIELDS) for entrant in row["entrants"]],
            game_logs=[game.write(each) for each in row["game_logs"]],
        )


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


class ReplayPublicKeySerializer(serializers.Serializer):
    """The key that signs every replay the site serves (docs/replay-format.md, "Signatures")."""

    algorithm = serializers.CharField(help_text="Always `Ed25519`.")
    key_id = serializers.CharField(help_text="The `key_id` a replay's `signature` names: 16 hex digits.")
    public_key = serializers.CharField(help_text="The public key's 32 bytes, in base64.")
    pem = serializers.CharField(
        help_text="The public key as PEM (SubjectPublicKeyInfo): the file /.well-known/lineit-replay-key.pem, "
        "which `lineit verify --key` reads (as it reads this answer, saved to a file)."
    )
