"""Bots and versions, their validation reports and uploads."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bots.models import BOT_NAME_PATTERN, Bot, BotVersion

from ..permissions import may_manage
from .common import absolute, viewer


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
        if not may_manage(viewer(self), version.bot.owner_id):
            return None
        return absolute(self, "api-version-source", version.pk)


class VersionUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A .py file, or a .zip package with bot.py at its root.")
