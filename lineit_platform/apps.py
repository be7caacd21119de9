from django.apps import AppConfig


class PlatformConfig(AppConfig):
    """The project itself as an app: it makes its Celery app the current one and registers its
    system checks, its database connections' execute wrapper and the receiver that keeps the keys
    of users' names (accounts.py) once Django is ready."""

    name = "lineit_platform"
    verbose_name = "Line-it Arena"

    def ready(self) -> None:
        # Services send tasks by name through this app (queueing.py); tasks called directly (the
        # admin, a shell, the tests) use the current app, which must be this one in web processes too.
        import lineit_platform.celery
        import lineit_platform.checks
        import lineit_platform.database  # noqa: F401
        from lineit_platform.accounts import connect_receivers

        connect_receivers()  # the keys of every user's name, whichever face saves it
