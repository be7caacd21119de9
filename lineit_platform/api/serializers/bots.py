"""Bots and versions, their validation reports and uploads."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bots.models import BOT_NAME_PATTERN, Bot, BotVersion
from tournaments.selectors.sprt import sprt_summary, versions_sprt
from tournaments.selectors.versions import placement_progress

from ..permissions import may_manage
from .common import absolute, viewer
from .sprt import SprtTestSerializer


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
    reason = serializers.CharField(
        source="rejection_summary", help_text="Why the version was rejected: the failure's kind and where."
    )
    message = serializers.SerializerMethodField(
        help_text="The failure's message, which may quote the bot's own text (owner and staff only; else null)."
    )
    stderr = serializers.SerializerMethodField(help_text="The bot's stderr (owner and staff only; else null).")
    sandbox_tier = serializers.CharField()

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_message(self, version: BotVersion) -> str | None:
        return version.rejection_message if may_manage(viewer(self), version.bot.owner_id) else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_stderr(self, version: BotVersion) -> str | None:
        return version.rejection_stderr if may_manage(viewer(self), version.bot.owner_id) else None


class LadderStateSerializer(serializers.Serializer):
    on_ladder = serializers.BooleanField(
        help_text="Whether the ladder schedules it: active, not taken off, its placement over."
    )
    removed_at = serializers.DateTimeField(
        source="ladder_removed_at", allow_null=True, help_text="When it was taken off the ladder for failing."
    )
    removed_reason = serializers.CharField(source="ladder_removed_reason", help_text="Why (empty while on it).")
    removed_match = serializers.IntegerField(
        source="ladder_removed_match", allow_null=True, help_text="Id of the match that took it off."
    )
    failing_matches = serializers.IntegerField(
        source="ladder_failing_matches", help_text="Ranked matches in a row, up to the last, in which it failed."
    )
    failing_matches_limit = serializers.SerializerMethodField(
        help_text="How many in a row take a version off the ladder (0: never)."
    )

    def get_failing_matches_limit(self, version: BotVersion) -> int:
        return int(settings.LADDER_MAX_CONSECUTIVE_FAILING_MATCHES)


class PlacementSerializer(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=["none", "playing", "done"],
        help_text="`playing` while it plays its placement games, `done` after, `none` if it had none.",
    )
    games = serializers.IntegerField(
        allow_null=True, help_text="Rated games so far, in the ladder ruleset where it has fewest (while playing)."
    )
    target = serializers.IntegerField(help_text="The most games the placement plays (PLACEMENT_GAMES).")
    half_width = serializers.FloatField(
        allow_null=True,
        required=False,
        help_text="Its widest 95% rating interval over the ladder rulesets, in Elo, each side (while playing; "
        "null before any game). The placement ends when it is at most PLACEMENT_INTERVAL_ELO.",
    )


class VersionListSerializer(serializers.ListSerializer):
    """A page of versions: the progress of those in placement read at once, never per row."""

    def to_representation(self, data: Any) -> list[Any]:
        versions = list(data.all() if hasattr(data, "all") else data)
        self.child.context["placement"] = placement_progress(versions)
        self.child.context["sprt"] = versions_sprt(version.pk for version in versions)
        return super().to_representation(versions)


class VersionSerializer(serializers.ModelSerializer):
    bot_name = serializers.CharField(source="bot.name", read_only=True)
    label = serializers.CharField(read_only=True)
    uploaded_by = serializers.CharField(source="uploaded_by.username", read_only=True)
    validation = ValidationReportSerializer(source="*", read_only=True)
    source_url = serializers.SerializerMethodField(help_text="Download of the code (owner and staff only).")
    ladder = LadderStateSerializer(source="*", read_only=True)
    placement = serializers.SerializerMethodField()
    sprt = serializers.SerializerMethodField(
        help_text="Its newest SPRT against an earlier version (null: none), as GET /api/versions/{id}/sprt/."
    )

    class Meta:
        model = BotVersion
        list_serializer_class = VersionListSerializer
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
            "ladder",
            "placement",
            "sprt",
            "source_url",
        ]
        read_only_fields = fields

    @extend_schema_field(PlacementSerializer)
    def get_placement(self, version: BotVersion) -> dict[str, Any]:
        if version.placement_started_at is None:
            return {"state": "none", "games": None, "target": settings.PLACEMENT_GAMES}
        if not version.in_placement:
            return {"state": "done", "games": None, "target": settings.PLACEMENT_GAMES}
        progress = self.context.get("placement")
        if progress is None or version.pk not in progress:
            progress = placement_progress([version])
        found = progress[version.pk]
        return {"state": "playing", "games": found.games, "target": found.target, "half_width": found.half_width}

    @extend_schema_field(SprtTestSerializer(allow_null=True))
    def get_sprt(self, version: BotVersion) -> dict[str, Any] | None:
        tests = self.context.get("sprt")
        test = tests.get(version.pk) if tests is not None else versions_sprt([version.pk]).get(version.pk)
        return None if test is None else SprtTestSerializer(sprt_summary(test)).data

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_source_url(self, version: BotVersion) -> str | None:
        if not may_manage(viewer(self), version.bot.owner_id):
            return None
        return absolute(self, "api-version-source", version.pk)


class VersionUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A .py file, or a .zip package with bot.py at its root.")


class FailureGameSerializer(serializers.Serializer):
    match = serializers.IntegerField(source="match_id")
    game = serializers.IntegerField(source="game_id")
    game_index = serializers.IntegerField()
    version = serializers.IntegerField(source="version_id")
    seat = serializers.IntegerField()
    kind = serializers.CharField()
    decision = serializers.IntegerField(help_text="The failing decision in the game (-1 outside play).")


class FailureHealthSerializer(serializers.Serializer):
    since = serializers.DateTimeField(help_text="The start of the window: matches finished since.")
    days = serializers.IntegerField(help_text="The window's length (FAILURE_HEALTH_DAYS).")
    matches = serializers.IntegerField(help_text="Finished matches played in the window.")
    failing_matches = serializers.IntegerField(help_text="Of those, the ones with a failure (the bot's fault).")
    failures = serializers.IntegerField(help_text="Failures in all, one per seat and game.")
    by_kind = serializers.DictField(
        child=serializers.IntegerField(), help_text="Failures by kind (lineit.botkit.failures), most first."
    )
    recent = FailureGameSerializer(many=True, help_text="The newest failing games (at most 10).")
