"""Your notification settings (GET/PUT/PATCH /api/me/notifications/) and your recent notifications."""

from __future__ import annotations

from rest_framework import serializers

from lineit_platform.errors import ApplicationError
from notifications.models import Notification, NotificationEvent
from notifications.services import EMAIL_MAX_LENGTH, email_check, webhook_url_check

EVENTS_HELP = "Events to be told of: " + ", ".join(f"{value} ({label})" for value, label in NotificationEvent.choices)


class NotificationSerializer(serializers.ModelSerializer):
    class Meta:
        model = Notification
        fields = ["id", "event", "channel", "status", "attempts", "last_error", "created_at", "sent_at"]
        read_only_fields = fields


class NotificationSettingsSerializer(serializers.Serializer):
    email = serializers.CharField(
        max_length=EMAIL_MAX_LENGTH,
        allow_blank=True,
        required=False,
        help_text="Your account's address, where mail goes; empty: no mail.",
    )
    email_events = serializers.ListField(
        child=serializers.ChoiceField(choices=NotificationEvent.choices), max_length=20, help_text=EVENTS_HELP
    )
    webhook_events = serializers.ListField(
        child=serializers.ChoiceField(choices=NotificationEvent.choices), max_length=20, help_text=EVENTS_HELP
    )
    webhook_url = serializers.CharField(
        max_length=2000,
        allow_blank=True,
        help_text="An https URL that receives a JSON POST per event (Slack's text and Discord's content "
        "fields, event, url and ids); empty: no webhook. Checked when saved and again when sent: public "
        "addresses only, port 443, no credentials in it.",
    )
    recent = NotificationSerializer(many=True, read_only=True, help_text="Your last 20 notifications, newest first.")

    def validate_webhook_url(self, value: str) -> str:
        try:
            return webhook_url_check(value)
        except ApplicationError as error:
            raise serializers.ValidationError(error.message.removeprefix("webhook_url: ")) from None

    def validate_email(self, value: str) -> str:
        try:
            return email_check(value)
        except ApplicationError as error:
            raise serializers.ValidationError(error.message.removeprefix("email: ")) from None
