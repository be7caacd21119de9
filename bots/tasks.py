"""Celery tasks of the bots app: thin, take ids, call one service."""

from __future__ import annotations

from celery import shared_task

from lineit.botkit.referee import PlatformFailure


def _sandbox_errors() -> tuple[type[BaseException], ...]:
    from lineit.sandbox import SandboxUnavailable

    return (PlatformFailure, SandboxUnavailable)


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=300,
    soft_time_limit=270,
    max_retries=5,
    default_retry_delay=30,
)
def bot_version_validate_task(self, version_id: int) -> str:
    from .services import bot_version_validate

    try:
        return str(bot_version_validate(version_id=version_id).status)
    except _sandbox_errors() as error:
        raise self.retry(exc=error) from error
