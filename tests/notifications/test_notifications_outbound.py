"""A user's slow receiver against the platform: a local HTTPS server (and a mail server) that
trickles its answer one byte at a time, real Celery workers (housekeeping, outbound), Redis and
PostgreSQL. Every call to someone's server ends within its total deadline, on a queue and a worker
of its own, one attempt per user at a time, and every attempt ends recorded (sent, failed with its
reason and tried again, or given up); the sweeper takes up what a stopped attempt or a lost message
left, without sending twice what the broker still holds.

The figures (printed with -s): the delay a trickling receiver imposes on the upkeep (the
housekeeping worker's tasks) and on another user's notification."""

from __future__ import annotations

import signal
import smtplib
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from celery_processes import CeleryProcess, wait_for, worker
from django.core import mail
from django.utils import timezone
from notification_receivers import (
    Certificates,
    HttpReceiver,
    http_receiver,
    make_certificates,
    notification_queues_drain,
    take_messages,
    trickler,
)

from lineit_platform.celery import app
from lineit_platform.models import WorkerHeartbeat
from notifications.delivery import lease, notifications_sweep
from notifications.models import Notification
from notifications.services import notification_settings_update, notify_sprt_decided
from notifications.webhooks import WebhookFailed, webhook_post
from tournaments.models import Match
from tournaments.services.matches.states import match_schedule

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def certificates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Certificates:
    """A test CA this process (and the workers it starts) trusts, through SSL_CERT_FILE."""
    made = make_certificates(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(made.ca))
    return made


def notify(user: Any, number: int) -> None:
    notify_sprt_decided(
        sprt_id=number, owner_id=user.pk, new_version="a@v2", old_version="a@v1", verdict="H1 accepted", games=20
    )


def make_notifications() -> None:
    """Run the tasks that make notifications (taken off the housekeeping queue, as its worker
    would), leaving the deliveries they send on the outbound queue."""
    for name, args, _ in take_messages("housekeeping"):
        app.tasks[name].apply(args=args)


# --- The total deadline -------------------------------------------------------------------------


def test_a_webhook_that_trickles_its_status_line_is_cut_at_the_total_deadline(
    certificates: Certificates, settings: Any
) -> None:
    """One byte every 0.3 s is under any per-read timeout: only a deadline on the whole request
    stops it (before: the status line and headers were not under the deadline, 64 s per post)."""
    settings.WEBHOOK_ALLOW_LOOPBACK, settings.WEBHOOK_TIMEOUT_SECONDS = True, 1.0
    with trickler(interval=0.3, certificates=certificates) as slow:
        started = time.monotonic()
        with pytest.raises(WebhookFailed) as failed:
            webhook_post(slow.url(), {"text": "hello"})
        took = time.monotonic() - started
        wait_for(lambda: slow.open_now() == 0, "the receiver to see the platform hang up", 10)
    assert str(failed.value) == "no answer within 1 s" and not failed.value.permanent
    (connection,) = slow.connections
    assert connection.request is not None and connection.request["json"] == {"text": "hello"}  # TLS, verified
    assert connection.bytes_sent < len(b"HTTP/1.1 200 OK\r\n")  # cut inside the status line
    print(f"\nwebhook to a trickling HTTPS receiver: given up after {took:.2f} s (deadline 1 s)")


def test_a_mail_server_that_trickles_its_greeting_is_cut_at_the_total_deadline(settings: Any) -> None:
    settings.EMAIL_BACKEND = "notifications.mail.DeadlineEmailBackend"
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 1
    with trickler(interval=0.3, smtp=True) as slow:
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", slow.port
        started = time.monotonic()
        with pytest.raises((TimeoutError, smtplib.SMTPException)):
            mail.send_mail("subject", "text", "noreply@localhost", ["alice@example.org"])
        took = time.monotonic() - started
        wait_for(lambda: slow.open_now() == 0, "the mail server to see the platform hang up", 10)
    assert slow.connections[0].bytes_sent < len(b"220-smtp.test slow greeting\r\n")
    print(f"\nmail to a trickling server: given up after {took:.2f} s (EMAIL_TIMEOUT 1 s)")


# --- Workers: the upkeep and the other users do not wait -----------------------------------------


@pytest.fixture
def workers(tmp_path: Path, broker: Any, certificates: Certificates) -> Iterator[Any]:
    started: list[CeleryProcess] = []

    def start(name: str, *queues: str, concurrency: int = 1, **environment: str) -> CeleryProcess:
        variables = {
            "WEBHOOK_ALLOW_LOOPBACK": "true",
            "WORKER_HEARTBEAT_SECONDS": "0.5",
            "SSL_CERT_FILE": str(certificates.ca),
            **environment,
        }
        started.append(worker(tmp_path / f"{name}.log", concurrency, variables, queues=queues))
        return started[-1]

    yield start
    for process in started:
        process.stop(signal.SIGTERM)


def wait_for_workers(*queues: str) -> None:
    def ready() -> bool:
        serving = [queue for row in WorkerHeartbeat.objects.values_list("queues", flat=True) for queue in row]
        return all(queue in serving for queue in queues)

    wait_for(ready, f"workers on {', '.join(queues)}", 120)


def stuck_match(version_factory: Any) -> Match:
    """A running match whose worker is gone: the housekeeping sweeper requeues it."""
    match = match_schedule(versions=[version_factory(), version_factory()], games=1)
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.RUNNING, attempts=1, worker="gone", deadline=timezone.now() - timedelta(seconds=5)
    )
    return match


@pytest.mark.slow
def test_a_slow_receiver_holds_neither_the_upkeep_nor_another_users_notification(
    alice: Any, bob: Any, certificates: Certificates, workers: Any, version_factory: Any, settings: Any
) -> None:
    """alice's webhook trickles its status line; she gets three notifications, then bob one.
    Before, the three held the only housekeeping process in turn (64 s each), and the sweeper
    and bob's notification waited behind them. Now: the housekeeping worker never sees them, the
    outbound worker (one process, the worst case) gives each at most WEBHOOK_TIMEOUT_SECONDS,
    alice has one attempt at a time, so bob's waits for one of hers at most, not for all three;
    each of hers ends recorded with its reason."""
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    deadline = 2.0
    with trickler(interval=0.5, certificates=certificates) as slow, http_receiver() as fast:
        notification_settings_update(user=alice, email_events=[], webhook_url=slow.url())
        notification_settings_update(user=bob, email_events=[], webhook_url=fast.url())
        workers("housekeeping", "housekeeping")
        workers(
            "outbound",
            "outbound",
            WEBHOOK_TIMEOUT_SECONDS=str(deadline),
            NOTIFICATION_MAX_ATTEMPTS="1",
        )
        wait_for_workers("housekeeping", "outbound")
        match = stuck_match(version_factory)

        for number in (1, 2, 3):
            notify(alice, number)
        wait_for(lambda: len(slow.connections) == 1, "alice's first attempt to reach her receiver", 60)
        upkeep_sent = time.monotonic()
        app.send_task("tournaments.tasks.matches_sweep")
        bob_sent = time.monotonic()
        notify(bob, 4)
        wait_for(lambda: Match.objects.get(pk=match.pk).status == Match.Status.QUEUED, "the sweeper", 60)
        upkeep_done = time.monotonic()
        alice_first_open = slow.connections[0].closed_at is None
        wait_for(lambda: len(fast.requests) == 1, "bob's notification", 60)
        wait_for(
            lambda: Notification.objects.filter(user=alice, status="failed").count() == 3,
            "alice's three notifications to end",
            90,
        )

    bob_delay = fast.requests[0]["at"] - bob_sent
    print(
        f"\nupkeep (the sweeper) ran {upkeep_done - upkeep_sent:.2f} s after it was sent, while alice's "
        f"receiver held an outbound process; bob's notification arrived {bob_delay:.2f} s after it was "
        f"sent (alice's attempts: {[round(c.closed_at - c.opened_at, 2) for c in slow.connections if c.closed_at]} s, "
        f"deadline {deadline:g} s)"
    )
    assert alice_first_open  # the upkeep did not wait for alice's attempt to end
    assert len(slow.connections) == 3
    # bob's notification came before alice's second attempt began: it waited for one of hers at most.
    assert fast.requests[0]["at"] < slow.connections[1].opened_at
    assert {row.last_error for row in Notification.objects.filter(user=alice)} == {f"no answer within {deadline:g} s"}
    assert Notification.objects.get(user=bob).status == "sent"


@pytest.mark.slow
def test_an_attempt_stopped_by_the_task_time_limit_is_recorded_and_tried_again(
    alice: Any, certificates: Certificates, workers: Any, settings: Any
) -> None:
    """The task's soft time limit as the backstop (here shorter than the webhook's deadline):
    the attempt it stops is recorded and tried again, then given up (before: pending for good,
    no error, no retry)."""
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    with trickler(interval=0.5, certificates=certificates) as slow:
        notification_settings_update(user=alice, email_events=[], webhook_url=slow.url())
        workers(
            "notifications",
            "housekeeping",
            "outbound",
            WEBHOOK_TIMEOUT_SECONDS="60",
            NOTIFICATION_TIME_LIMIT_SECONDS="1",
            NOTIFICATION_MAX_ATTEMPTS="2",
            NOTIFICATION_RETRY_SECONDS="0.2",
        )
        notify(alice, 5)
        wait_for(lambda: Notification.objects.filter(status="failed").exists(), "the notification to end", 120)
    notification = Notification.objects.get()
    assert notification.attempts == 2 and len(slow.connections) == 2
    assert notification.last_error.startswith("stopped by SoftTimeLimitExceeded")
    assert notification.sending_until is None


# --- The sweeper ----------------------------------------------------------------------------------


def outbound_messages() -> list[tuple[str, list[Any]]]:
    """What waits on the outbound queue, taken off it."""
    return [(name.rsplit(".", 1)[-1], args) for name, args, _ in take_messages("outbound")]


@pytest.fixture
def subscribed(alice: Any, settings: Any) -> Iterator[tuple[Any, HttpReceiver]]:
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    with http_receiver() as receiver:
        notification_settings_update(user=alice, email_events=[], webhook_url=receiver.url())
        notification_queues_drain()
        yield alice, receiver
        notification_queues_drain()


def test_the_sweeper_records_an_attempt_whose_worker_died_and_sends_it_again(
    subscribed: tuple[Any, HttpReceiver], broker: Any
) -> None:
    alice, _ = subscribed
    notify(alice, 6)
    make_notifications()
    (notification,) = Notification.objects.all()
    assert outbound_messages() == [("notification_deliver_task", [notification.pk])]
    # Its worker was killed at the hard time limit, in the middle of the attempt.
    Notification.objects.filter(pk=notification.pk).update(
        attempts=1, sending_until=timezone.now() - timedelta(seconds=1), queued_at=None
    )
    assert notifications_sweep() == {"stopped": 1, "resent": 0, "started": 1}
    notification.refresh_from_db()
    assert notification.status == "pending" and notification.sending_until is None
    assert notification.last_error == "attempt 1 did not end (its worker stopped before recording it)"
    assert outbound_messages() == [("notification_deliver_task", [notification.pk])]


def test_the_sweeper_sends_again_only_a_delivery_the_broker_lost(
    subscribed: tuple[Any, HttpReceiver], broker: Any
) -> None:
    alice, _ = subscribed
    notify(alice, 7)
    make_notifications()
    (notification,) = Notification.objects.all()
    long_ago = timezone.now() - lease() - timedelta(seconds=1)
    Notification.objects.filter(pk=notification.pk).update(queued_at=long_ago)
    # Its message still waits in the queue (a backlog): not sent twice, however often it sweeps.
    assert notifications_sweep()["resent"] == 0 and notifications_sweep()["resent"] == 0
    assert outbound_messages() == [("notification_deliver_task", [notification.pk])]  # taken off: lost now
    assert notifications_sweep()["resent"] == 1
    assert outbound_messages() == [("notification_deliver_task", [notification.pk])]


def test_a_users_notifications_go_one_at_a_time_each_sending_the_next(
    subscribed: tuple[Any, HttpReceiver], broker: Any
) -> None:
    """Three notifications for alice: one task in the queue, not three; each attempt that ends
    sends the next one's."""
    from notifications.delivery import notification_deliver

    alice, receiver = subscribed
    for number in (8, 9, 10):
        notify(alice, number)
    make_notifications()
    first, second, third = Notification.objects.order_by("pk")
    assert outbound_messages() == [("notification_deliver_task", [first.pk])]
    assert notification_deliver(notification_id=first.pk).status == "sent"
    assert outbound_messages() == [("notification_deliver_task", [second.pk])]
    assert notification_deliver(notification_id=second.pk).status == "sent"
    assert outbound_messages() == [("notification_deliver_task", [third.pk])]
    assert notification_deliver(notification_id=third.pk).status == "sent"
    assert outbound_messages() == [] and len(receiver.requests) == 3


def test_a_time_limit_below_the_deadlines_is_reported_by_the_system_checks() -> None:
    from django.test import override_settings

    from lineit_platform.checks import check_platform_settings

    assert "lineit.W020" not in {problem.id for problem in check_platform_settings()}
    with override_settings(NOTIFICATION_TIME_LIMIT_SECONDS=5, WEBHOOK_TIMEOUT_SECONDS=5.0, EMAIL_TIMEOUT=10):
        assert "lineit.W020" in {problem.id for problem in check_platform_settings()}
