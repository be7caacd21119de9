from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"
    verbose_name = "Bots"
    default_auto_field = "django.db.models.BigAutoField"
