from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """Email and webhooks. It listens to what bots and tournaments announce (their signals.py);
    neither of them imports this app."""

    name = "notifications"
    verbose_name = "Notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Its receivers connect themselves (@receiver), once, as Django's signals guide advises.
        from . import receivers  # noqa: F401
