from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The Celery app must be the current app in web processes too (tasks are queued there).
        import lineit_platform.celery
        import lineit_platform.checks  # noqa: F401
