from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The arrow points down: bots announces that a version changed and knows nothing of this
        # app; this app's receiver (@receiver, connected on import) decides what follows.
        from . import receivers  # noqa: F401
