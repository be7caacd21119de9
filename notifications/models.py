"""What a user can be told about, what they chose to be told, and each message sent
(docs/platform.md, "Notifications").

The tables keep the names they had when these models lived in bots (``bots_notification``,
``bots_notificationsettings``): the move to this app changed Django's state only
(migrations/0001_initial.py), no table was renamed or copied."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class NotificationEvent(models.TextChoices):
    """What a user can be told about, by email or webhook. The values are stable: they are the
    ``event`` of a webhook's payload and the names the API takes."""

    VERSION_VALIDATED = "version_validated", "a version of yours passed its validation"
    VERSION_REJECTED = "version_rejected", "a version of yours was rejected by its validation"
    VERSION_OFF_LADDER = "version_off_ladder", "a version of yours was taken off the ladder"
    SPRT_DECIDED = "sprt_decided", "the SPRT of a new version against the previous one decided"
    MATCH_FINISHED = "match_finished", "a test match you requested finished (or failed)"
    TOURNAMENT_FINISHED = "tournament_finished", "a tournament one of your bots played finished"


def all_notification_events() -> list[str]:
    return list(NotificationEvent.values)


class NotificationSettings(models.Model):
    """A user's choices: which events by email (to the account's address), which by webhook,
    and the webhook's URL (checked when saved and again when sent). A user without a row has
    the defaults: every event by email, and by webhook once a URL is set."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="notification_settings"
    )
    email_events = models.JSONField(default=all_notification_events, blank=True)
    webhook_events = models.JSONField(default=all_notification_events, blank=True)
    webhook_url = models.CharField(max_length=2000, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "bots_notificationsettings"
        verbose_name_plural = "notification settings"

    def __str__(self) -> str:
        return f"notification settings of user {self.user_id}"


class Notification(models.Model):
    """One message to one user on one channel, and how its delivery went. ``key`` says what it
    is about (``version:12:validated``): one notification per user, channel and key, so an event
    told twice (a redelivered task) is sent once."""

    class Channel(models.TextChoices):
        EMAIL = "email"
        WEBHOOK = "webhook"

    class Status(models.TextChoices):
        PENDING = "pending"  # being sent (sending_until), waiting for its turn or for its next attempt
        SENT = "sent"
        FAILED = "failed"  # given up: out of attempts, or refused for good (last_error says why)

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    event = models.CharField(max_length=32, choices=NotificationEvent.choices)
    channel = models.CharField(max_length=8, choices=Channel.choices)
    key = models.CharField(max_length=200)
    destination = models.CharField(max_length=2000)  # the address or the URL, as they were when made
    subject = models.CharField(max_length=200)
    text = models.TextField()
    payload = models.JSONField(default=dict)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # An attempt in progress holds the notification until then (its worker's time limit and a
    # margin): a user has one attempt in progress at a time (services.notification_deliver), and
    # one whose worker was killed is taken up again by the sweeper once this has passed.
    sending_until = models.DateTimeField(null=True, blank=True)
    # When its delivery task was last sent: the sweeper sends again only what was lost.
    queued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "bots_notification"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "channel", "key"], name="unique_notification_per_channel")
        ]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="notification_user_recent"),
            # The pending ones, few at any time: the sweeper and each user's turn read them.
            models.Index(
                fields=["user", "created_at"], name="notification_pending", condition=models.Q(status="pending")
            ),
        ]

    def __str__(self) -> str:
        return f"{self.channel} {self.event} to user {self.user_id} ({self.status})"
