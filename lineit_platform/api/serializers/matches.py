"""Matches and games: lists, details (with failures), requests, verification."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from lineit.engine import RULESETS, STANDARD
from tournaments.models import Game, GameFailure, Match, MatchEntrant

from ..filters import MAX_ID
from ..permissions import may_manage
from .common import absolute, viewer

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

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_message(self, failure: GameFailure) -> str | None:
        return failure.message if may_manage(viewer(self), failure.version.bot.owner_id) else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_stderr_tail(self, failure: GameFailure) -> str | None:
        return failure.stderr_tail if may_manage(viewer(self), failure.version.bot.owner_id) else None

    def to_representation(self, failure: GameFailure) -> dict[str, Any]:
        # Written out by hand for the speed of long lists; the declared fields stay the schema.
        owner = may_manage(viewer(self), failure.version.bot.owner_id)
        return {
            "seat": failure.seat,
            "version": failure.version_id,
            "kind": failure.kind,
            "message": failure.message if owner else None,
            "decision": failure.decision,
            "stderr_tail": failure.stderr_tail if owner else None,
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
        return absolute(self, "api-game-replay", game.pk)

    @extend_schema_field(OpenApiTypes.URI)
    def get_verification_url(self, game: Game) -> str:
        return absolute(self, "api-game-verification", game.pk)


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
