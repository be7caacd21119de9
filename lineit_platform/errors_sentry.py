"""Error tracking with Sentry, when SENTRY_DSN is set (settings.py calls sentry_init; sentry-sdk is
imported only then). The Django integration reports unhandled exceptions of requests (the 500s)
and the Celery one failed tasks, both with the logging integration's ERROR records; no personal
data is sent (send_default_pii off: no user, cookie or address), no frame's local variables (they
hold connection parameters and URLs with passwords), and no performance traces unless
SENTRY_TRACES_SAMPLE_RATE asks for them. Any server that speaks Sentry's protocol will do
(self-hosted Sentry, GlitchTip)."""

from __future__ import annotations


def sentry_init(*, dsn: str, environment: str, traces_sample_rate: float) -> None:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    import lineit

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=f"lineit-arena@{lineit.__version__}",
        integrations=[DjangoIntegration(), CeleryIntegration()],
        traces_sample_rate=traces_sample_rate,
        send_default_pii=False,
        # No frame's local variables: Sentry's scrubber looks at names like "password" at the top
        # of a frame, not inside a dict such as a database connection's parameters or in a URL,
        # and every frame of a failure on the way to the database holds them.
        include_local_variables=False,
    )
