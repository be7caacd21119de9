# The notification models, moved here from the bots app (bots 0007 gave them up): Django's state
# only. Their tables, made by bots 0005, keep their names (db_table) and their rows; nothing runs
# on the database either way (tests/notifications/test_notifications_migration.py).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import notifications.models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("bots", "0007_notifications_moved_out"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="NotificationSettings",
                    fields=[
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="notification_settings",
                                serialize=False,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "email_events",
                            models.JSONField(blank=True, default=notifications.models.all_notification_events),
                        ),
                        (
                            "webhook_events",
                            models.JSONField(blank=True, default=notifications.models.all_notification_events),
                        ),
                        ("webhook_url", models.CharField(blank=True, max_length=2000)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                    ],
                    options={
                        "verbose_name_plural": "notification settings",
                        "db_table": "bots_notificationsettings",
                    },
                ),
                migrations.CreateModel(
                    name="Notification",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        (
                            "event",
                            models.CharField(
                                choices=[
                                    ("version_validated", "a version of yours passed its validation"),
                                    ("version_rejected", "a version of yours was rejected by its validation"),
                                    ("version_off_ladder", "a version of yours was taken off the ladder"),
                                    ("sprt_decided", "the SPRT of a new version against the previous one decided"),
                                    ("match_finished", "a test match you requested finished (or failed)"),
                                    ("tournament_finished", "a tournament one of your bots played finished"),
                                ],
                                max_length=32,
                            ),
                        ),
                        (
                            "channel",
                            models.CharField(choices=[("email", "Email"), ("webhook", "Webhook")], max_length=8),
                        ),
                        ("key", models.CharField(max_length=200)),
                        ("destination", models.CharField(max_length=2000)),
                        ("subject", models.CharField(max_length=200)),
                        ("text", models.TextField()),
                        ("payload", models.JSONField(default=dict)),
                        (
                            "status",
                            models.CharField(
                                choices=[("pending", "Pending"), ("sent", "Sent"), ("failed", "Failed")],
                                default="pending",
                                max_length=8,
                            ),
                        ),
                        ("attempts", models.PositiveSmallIntegerField(default=0)),
                        ("last_error", models.CharField(blank=True, max_length=500)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("next_attempt_at", models.DateTimeField(blank=True, null=True)),
                        ("sent_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="notifications",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "bots_notification",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [models.Index(fields=["user", "-created_at"], name="notification_user_recent")],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("user", "channel", "key"), name="unique_notification_per_channel"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
