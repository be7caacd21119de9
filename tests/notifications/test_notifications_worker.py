"""Notifications end to end with a real Celery worker on the housekeeping and outbound queues
(Redis, the test database; tests/notifications/test_notifications_outbound.py runs them apart): an event sent after commit becomes a mail and a webhook; a receiver that keeps
failing is tried again by Celery after the delays the service stores, then given up."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery_processes import CeleryProcess, wait_for, worker
from notification_receivers import HttpReceiver, SmtpServer, http_receiver, notification_queues_drain, smtp_server

from lineit_platform.celery import app
from notifications.models import Notification
from notifications.services import notification_settings_update, notify_sprt_decided

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def receivers(settings: Any) -> Iterator[tuple[SmtpServer, HttpReceiver]]:
    settings.WEBHOOK_ALLOW_LOOPBACK = True  # to save the URL here; the worker gets it from its environment
    with smtp_server() as mailbox, http_receiver() as receiver:
        yield mailbox, receiver


def notifications_worker(tmp_path: Path, mailbox: SmtpServer, **extra: str) -> CeleryProcess:
    notification_queues_drain()
    environment = {
        "EMAIL_HOST": mailbox.host,
        "EMAIL_PORT": str(mailbox.port),
        "WEBHOOK_ALLOW_LOOPBACK": "true",
        "WEBHOOK_TIMEOUT_SECONDS": "2",
        **extra,
    }
    return worker(tmp_path / "notifications.log", 1, environment, queues=("housekeeping", "outbound"))


def test_an_event_reaches_the_mail_server_and_the_webhook_through_the_worker(
    alice: Any, receivers: tuple[SmtpServer, HttpReceiver], tmp_path: Path
) -> None:
    mailbox, receiver = receivers
    notification_settings_update(user=alice, webhook_url=receiver.url())
    process = notifications_worker(tmp_path, mailbox)
    try:
        notify_sprt_decided(
            sprt_id=11, owner_id=alice.pk, new_version="a@v2", old_version="a@v1", verdict="H0 accepted", games=60
        )
        wait_for(lambda: len(mailbox.messages) == 1 and len(receiver.requests) == 1, "the mail and the webhook", 90)
    finally:
        process.stop(signal.SIGTERM)
    assert receiver.requests[0]["json"]["verdict"] == "H0 accepted"
    assert mailbox.messages[0]["To"] == "alice@example.org"
    assert set(Notification.objects.values_list("status", flat=True)) == {"sent"}


def test_a_failing_webhook_is_retried_by_celery_then_given_up(
    alice: Any, receivers: tuple[SmtpServer, HttpReceiver], tmp_path: Path
) -> None:
    mailbox, receiver = receivers
    receiver.status = 503
    notification_settings_update(user=alice, email_events=[], webhook_url=receiver.url())
    process = notifications_worker(tmp_path, mailbox, NOTIFICATION_MAX_ATTEMPTS="3", NOTIFICATION_RETRY_SECONDS="0.2")
    try:
        notify_sprt_decided(
            sprt_id=12, owner_id=alice.pk, new_version="a@v2", old_version="a@v1", verdict="H1 accepted", games=60
        )
        wait_for(lambda: Notification.objects.filter(status="failed").exists(), "the notification to be given up", 90)
    finally:
        process.stop(signal.SIGTERM)
    notification = Notification.objects.get()
    assert notification.attempts == 3 and notification.last_error == "answered 503 Service Unavailable"
    assert len(receiver.requests) == 3
    assert "Retry in" in (tmp_path / "notifications.log").read_text()  # Celery's own retry, with its countdown


def test_a_task_queued_by_the_previous_release_under_its_former_name_is_still_consumed(
    alice: Any, receivers: tuple[SmtpServer, HttpReceiver], tmp_path: Path
) -> None:
    """Before an upgrade, the previous release queued a notification under the task's former name
    (lineit_platform.notifications.tasks.*): the new worker still runs it (the names are aliases
    for one release, routed as before)."""
    mailbox, receiver = receivers
    notification_settings_update(user=alice, webhook_url=receiver.url())
    process = notifications_worker(tmp_path, mailbox)
    try:
        message = {  # as the previous release's notify() sent it
            "user_id": alice.pk,
            "event": "sprt_decided",
            "key": "sprt:13:decided",
            "subject": "SPRT a@v2 v a@v1: H1 accepted",
            "text": "SPRT of a@v2 against a@v1: H1 accepted (it is stronger) after 60 games.",
            "url": "",
            "data": {"sprt_id": 13, "verdict": "H1 accepted"},
        }
        app.send_task("lineit_platform.notifications.tasks.notification_send_task", args=[message])
        wait_for(lambda: len(mailbox.messages) == 1 and len(receiver.requests) == 1, "the mail and the webhook", 90)
    finally:
        process.stop(signal.SIGTERM)
    assert receiver.requests[0]["json"]["sprt_id"] == 13
    assert set(Notification.objects.values_list("status", flat=True)) == {"sent"}
