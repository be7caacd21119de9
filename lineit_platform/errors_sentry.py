"""Error tracking with Sentry, when SENTRY_DSN is set (settings.py calls sentry_init; sentry-sdk is
imported only then). The Django integration reports unhandled exceptions of requests (the 500s)
and the Celery one failed tasks, both with the logging integration's ERROR records; no personal
data is sent (send_default_pii off: no user, cookie or address), and no performance traces unless
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
    )
