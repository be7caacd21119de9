"""Tournaments: lists, details with entries, creation and management."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from lineit import formats
from lineit.engine import RULESETS, STANDARD
from tournaments.models import Tournament, TournamentEntry

from ..filters import MAX_ID


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
    format = serializers.ChoiceField(choices=formats.FORMAT_CHOICES)  # the registry's, when the serializer is made
    starts_at = serializers.DateTimeField()
    table_size = serializers.IntegerField(min_value=2, max_value=5, default=2)
    options = serializers.DictField(
        required=False, default=dict, help_text=", ".join(option.name for option in formats.FORMAT_OPTIONS)
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
