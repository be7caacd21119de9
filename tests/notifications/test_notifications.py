"""Notifications, told as stories: alice's version is validated (or rejected), taken off the
ladder, her test match ends, a tournament her bot played finishes, her SPRT decides; each time a
real SMTP server (aiosmtpd) receives her mail and a real HTTP server on 127.0.0.1 her webhook.
The tasks go through the real Redis queues (housekeeping, outbound) and are run here, as the worker would
(notification_receivers.py). Webhooks to 127.0.0.1 over http are allowed only by the test
setting WEBHOOK_ALLOW_LOOPBACK; without it (and outside DEBUG) they are refused."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from notification_receivers import (
    TASK_PREFIX,
    HttpReceiver,
    SmtpServer,
    committed,
    http_receiver,
    notification_queues_drain,
    play_in_process,
    run_notification_tasks,
    smtp_server,
    take_messages,
)

from bots.services import bot_version_ladder_remove, bot_version_validate
from lineit_platform.celery import app
from notifications.delivery import DeliveryFailed, notification_deliver, retry_delay
from notifications.models import Notification, NotificationEvent, NotificationSettings
from notifications.services import notification_settings_update, notify_sprt_decided
from notifications.webhooks import WebhookRefused, webhook_check
from tournaments.models import Match, SprtTest, Tournament
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule
from tournaments.services.sprt import sprt_cancel, sprt_record_match, sprt_start
from tournaments.services.tournaments.creation import tournament_create
from tournaments.services.tournaments.running import tournament_advance, tournament_start

pytestmark = pytest.mark.django_db

CRASHING_BOT = b"""def act(observation):
    raise RuntimeError("boom")
"""
BUILTIN = Path(__file__).resolve().parents[2] / "lineit" / "builtin"


@pytest.fixture
def mailbox(settings: Any) -> Iterator[SmtpServer]:
    with smtp_server() as server:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = server.host, server.port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
        yield server


@pytest.fixture
def receiver(settings: Any) -> Iterator[HttpReceiver]:
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    settings.WEBHOOK_TIMEOUT_SECONDS = 2.0
    with http_receiver() as server:
        yield server


@pytest.fixture(autouse=True)
def _empty_queue() -> Iterator[None]:
    notification_queues_drain()
    yield
    notification_queues_drain()


@pytest.fixture
def subscribed(alice: Any, receiver: HttpReceiver, mailbox: SmtpServer) -> Any:
    """alice has an address and a webhook; every event by both (the defaults)."""
    notification_settings_update(user=alice, email="alice@example.org", webhook_url=receiver.url())
    return alice


def test_a_validated_version_tells_its_owner_by_mail_and_by_webhook(
    subscribed: Any, version_factory: Any, mailbox: SmtpServer, receiver: HttpReceiver, settings: Any
) -> None:
    version = version_factory(bot__owner=subscribed, bot__name="alices-bot", status="validating")
    with committed():
        bot_version_validate(version_id=version.pk)
    ran = run_notification_tasks()

    assert ran.count("notification_event_task") == 1 and ran.count("notification_deliver_task") == 2
    label, url = version.label, f"{settings.SITE_URL}/bots/alices-bot/v{version.number}/"
    [mail] = mailbox.messages
    assert mail["To"] == "alice@example.org" and mail["Subject"] == f"[Line-it Arena] {label} passed its validation"
    assert f"{label} passed its validation and is active: {url}" in mail.get_payload()
    [request] = receiver.requests
    payload = request["json"]
    assert request["headers"]["Content-Type"] == "application/json"
    assert payload["event"] == "version_validated" and payload["url"] == url
    assert payload["text"] == payload["content"] == f"{label} passed its validation and is active: {url}"
    assert payload["version_id"] == version.pk and payload["bot"] == "alices-bot" and payload["status"] == "active"
    assert payload["allowed_mentions"] == {"parse": []}
    assert set(Notification.objects.values_list("channel", "status")) == {("email", "sent"), ("webhook", "sent")}


def test_a_rejected_version_says_why(
    subscribed: Any, version_factory: Any, mailbox: SmtpServer, receiver: HttpReceiver
) -> None:
    version = version_factory(bot__owner=subscribed, status="validating", code=CRASHING_BOT)
    with committed():
        bot_version_validate(version_id=version.pk)
    run_notification_tasks()

    version.refresh_from_db()
    assert version.status == "rejected"
    [request] = receiver.requests
    assert request["json"]["event"] == "version_rejected"
    assert request["json"]["text"].startswith(
        f"{version.label} was rejected: validation game failed: exception in game 1"
    )
    assert mailbox.messages[0]["Subject"] == f"[Line-it Arena] {version.label} was rejected"


def test_a_version_taken_off_the_ladder_tells_its_owner_once(
    subscribed: Any, version_factory: Any, receiver: HttpReceiver, mailbox: SmtpServer
) -> None:
    version = version_factory(bot__owner=subscribed)
    with committed():
        bot_version_ladder_remove(version=version, reason="failed in 5 ranked matches in a row", match_id=7)
        bot_version_ladder_remove(version=version, reason="again")  # already off: nothing more
    run_notification_tasks()

    [request] = receiver.requests
    assert request["json"]["event"] == "version_off_ladder" and request["json"]["match_id"] == 7
    assert f"{version.label} was taken off the ladder: failed in 5 ranked matches in a row." in request["json"]["text"]
    assert len(mailbox.messages) == 1


def test_a_requested_test_match_tells_who_asked_and_a_ladder_match_tells_nobody(
    subscribed: Any, version_factory: Any, receiver: HttpReceiver, mailbox: SmtpServer
) -> None:
    mine, theirs = version_factory(bot__owner=subscribed), version_factory()
    with committed():
        requested = match_schedule(versions=[mine, theirs], games=2, requested_by=subscribed, seed=3)
        ladder = match_schedule(versions=[mine, theirs], games=2, ranked=True, origin=Match.Origin.LADDER, seed=4)
    with committed():
        requested = play_in_process(requested)
    with committed():
        play_in_process(ladder)
    assert requested.status == "finished"
    ran = run_notification_tasks()

    assert ran.count("notification_event_task") == 1  # the ladder match sent no event at all
    [request] = receiver.requests
    payload = request["json"]
    assert payload["event"] == "match_finished" and payload["match_id"] == requested.pk
    assert payload["text"].startswith(f"Your test match {requested.pk} finished after 2 games: {mine.label} ")
    assert [entrant["label"] for entrant in payload["entrants"]] == [mine.label, theirs.label]
    assert mailbox.messages[0]["Subject"] == f"[Line-it Arena] Your test match {requested.pk} finished"


def test_a_finished_tournament_tells_the_owner_of_each_entrant_their_place(
    subscribed: Any, bob: Any, version_factory: Any, receiver: HttpReceiver, mailbox: SmtpServer
) -> None:
    notification_settings_update(user=bob, email="bob@example.org")
    alices, bobs = version_factory(bot__owner=subscribed), version_factory(bot__owner=bob)
    tournament = tournament_create(
        versions=[alices, bobs],
        name="Friday cup",
        format="round-robin",
        starts_at=timezone.now() + timedelta(minutes=5),
        games_per_pairing=2,
    )
    with committed():
        tournament = tournament_start(tournament_id=tournament.pk, force=True)
        for match in Match.objects.filter(tournament=tournament):
            play_in_process(match)
        tournament = tournament_advance(tournament_id=tournament.pk)
    assert tournament.status == Tournament.Status.FINISHED
    run_notification_tasks()

    by_address = {mail["To"]: mail for mail in mailbox.messages}
    assert set(by_address) == {"alice@example.org", "bob@example.org"}
    assert by_address["bob@example.org"]["Subject"] == "[Line-it Arena] Tournament Friday cup finished"
    assert f"{bobs.label} placed " in by_address["bob@example.org"].get_payload()
    [request] = receiver.requests  # only alice has a webhook
    payload = request["json"]
    assert payload["event"] == "tournament_finished" and payload["tournament_id"] == tournament.pk
    assert [place["label"] for place in payload["places"]] == [alices.label]
    assert payload["places"][0]["place"] in (1, 2) and payload["entrants"] == 2


def test_a_decided_sprt_tells_the_owner(
    subscribed: Any, receiver: HttpReceiver, mailbox: SmtpServer, settings: Any
) -> None:
    with committed():
        notify_sprt_decided(
            sprt_id=9,
            owner_id=subscribed.pk,
            new_version="mybot@v4",
            old_version="mybot@v3",
            verdict="H1 accepted",
            games=240,
            elo=25.0,
            elo_interval=(5.0, 45.0),
            url="/bots/mybot/v4/",
        )
    run_notification_tasks()

    [request] = receiver.requests
    payload = request["json"]
    assert payload["event"] == "sprt_decided" and payload["sprt_id"] == 9 and payload["verdict"] == "H1 accepted"
    assert payload["text"] == (
        "SPRT of mybot@v4 against mybot@v3: H1 accepted (it is stronger) after 240 games, Elo +25.0 [+5.0, +45.0]. "
        f"{settings.SITE_URL}/bots/mybot/v4/"
    )
    assert mailbox.messages[0]["Subject"] == "[Line-it Arena] SPRT mybot@v4 v mybot@v3: H1 accepted"


def test_an_sprt_that_decides_tells_the_owner_and_one_cancelled_does_not(
    subscribed: Any, bot_factory: Any, version_factory: Any, receiver: HttpReceiver, mailbox: SmtpServer, settings: Any
) -> None:
    bot = bot_factory(owner=subscribed, name="alices")
    old = version_factory(bot=bot, number=1, code=(BUILTIN / "random_bot.py").read_bytes())
    new = version_factory(bot=bot, number=2, code=(BUILTIN / "greedy_bot.py").read_bytes())
    with committed():
        cancelled = sprt_start(new_version=new, batch_games=10, max_games=200, seed=3)
        sprt_cancel(test=cancelled, reason="by hand")
    run_notification_tasks()
    assert mailbox.messages == [] and receiver.requests == []  # a cancelled test is no verdict

    with committed():
        test = sprt_start(new_version=new, batch_games=10, max_games=200, seed=11)
        while test.is_running:  # each batch played in the sandbox, as a worker would, and folded in
            assert test.current_match_id is not None
            match_execute(match_id=test.current_match_id, worker="test")
            sprt_record_match(match_id=test.current_match_id)
            test.refresh_from_db()
    run_notification_tasks()

    assert test.status == SprtTest.Status.H1
    [mail] = mailbox.messages
    assert mail["Subject"] == f"[Line-it Arena] SPRT {new.label} v {old.label}: H1 accepted"
    [request] = receiver.requests
    payload = request["json"]
    assert payload["event"] == "sprt_decided" and payload["sprt_id"] == test.pk and payload["games"] == test.games
    assert payload["url"] == f"{settings.SITE_URL}/bots/alices/v2/" and payload["text"].endswith(payload["url"])
    assert Notification.objects.filter(event="sprt_decided", status="sent").count() == 2  # by mail and by webhook


def test_events_switched_off_send_nothing(
    subscribed: Any, version_factory: Any, receiver: HttpReceiver, mailbox: SmtpServer
) -> None:
    notification_settings_update(user=subscribed, email_events=[], webhook_events=["match_finished"])
    version = version_factory(bot__owner=subscribed, status="validating")
    with committed():
        bot_version_validate(version_id=version.pk)
    ran = run_notification_tasks()

    assert "notification_event_task" in ran  # the event was told, and nobody wanted it
    assert mailbox.messages == [] and receiver.requests == [] and not Notification.objects.exists()


def test_an_event_told_twice_is_sent_once(subscribed: Any, version_factory: Any, receiver: HttpReceiver) -> None:
    version = version_factory(bot__owner=subscribed, status="validating")
    with committed():
        bot_version_validate(version_id=version.pk)
    run_notification_tasks()
    with committed():  # the event's task delivered again (a worker died before acknowledging it)
        app.tasks["notifications.tasks.notification_event_task"].apply(args=["version_validation", version.pk])
    assert run_notification_tasks() == []
    assert len(receiver.requests) == 1 and Notification.objects.filter(channel="webhook").count() == 1


def test_the_former_task_names_are_handed_over_for_one_release(settings: Any) -> None:
    """Named lineit_platform.notifications.tasks.* before notifications became an app, all on the
    housekeeping queue: a message the previous release queued under those names is consumed
    there for one release and handed over under the new name, to its queue (a delivery to
    outbound: the housekeeping worker calls no one's server)."""
    names = ("notification_event_task", "notification_send_task", "notification_deliver_task")
    for name in names:
        assert settings.CELERY_TASK_ROUTES[f"lineit_platform.notifications.tasks.{name}"] == {"queue": "housekeeping"}
        app.tasks[f"lineit_platform.notifications.tasks.{name}"].apply(args=[41])
    assert take_messages("housekeeping") == [
        ("notifications.tasks.notification_event_task", [41], {}),
        ("notifications.tasks.notification_send_task", [41], {}),
    ]
    assert take_messages("outbound") == [("notifications.tasks.notification_deliver_task", [41], {})]


# --- Failing receivers ------------------------------------------------------------------------


def test_a_failing_webhook_is_retried_with_backoff_then_given_up_and_the_match_is_unaffected(
    subscribed: Any, version_factory: Any, receiver: HttpReceiver, settings: Any
) -> None:
    settings.NOTIFICATION_MAX_ATTEMPTS = 3
    notification_settings_update(user=subscribed, email_events=[])
    receiver.status = 500
    with committed():
        match = match_schedule(
            versions=[version_factory(bot__owner=subscribed), version_factory()], games=2, requested_by=subscribed
        )
    with committed():
        match = play_in_process(match)
    ran = run_notification_tasks()

    assert ran.count("notification_deliver_task") == 1  # one task, retried by Celery within it (eagerly here)
    assert len(receiver.requests) == 3
    notification = Notification.objects.get()
    assert notification.status == "failed" and notification.attempts == 3
    assert notification.last_error == "answered 500 Internal Server Error"
    match.refresh_from_db()
    assert match.status == "finished" and match.games_played == 2


def test_each_failed_attempt_waits_twice_as_long_as_the_one_before(
    subscribed: Any, receiver: HttpReceiver, settings: Any
) -> None:
    settings.NOTIFICATION_MAX_ATTEMPTS, settings.NOTIFICATION_RETRY_SECONDS = 4, 30.0
    settings.NOTIFICATION_RETRY_MAX_SECONDS = 100.0
    notification_settings_update(user=subscribed, email_events=[])
    receiver.status = 503
    with committed():
        notify_sprt_decided(
            sprt_id=1, owner_id=subscribed.pk, new_version="a@v2", old_version="a@v1", verdict="H0 accepted", games=20
        )
    run_notification_tasks_but_deliveries()
    notification = Notification.objects.get()

    delays = []
    for _ in range(3):
        before = timezone.now()
        with pytest.raises(DeliveryFailed) as failed:
            notification_deliver(notification_id=notification.pk)
        notification.refresh_from_db()
        assert notification.next_attempt_at is not None
        assert notification.next_attempt_at - before >= timedelta(seconds=failed.value.retry_in)
        delays.append(failed.value.retry_in)
    assert delays == [30.0, 60.0, 100.0]  # doubled, up to NOTIFICATION_RETRY_MAX_SECONDS
    assert notification_deliver(notification_id=notification.pk).status == "failed"  # the 4th and last
    assert len(receiver.requests) == 4
    assert [retry_delay(attempt) for attempt in (1, 2, 3)] == [30.0, 60.0, 100.0]


def run_notification_tasks_but_deliveries() -> None:
    """Make the notifications (the event's task) but leave their deliveries to the test."""
    for name, args, kwargs in take_messages("housekeeping"):
        if name in (TASK_PREFIX + "notification_send_task", TASK_PREFIX + "notification_event_task"):
            with committed():
                app.tasks[name].apply(args=args, kwargs=kwargs)


def test_a_webhook_that_does_not_answer_in_time_is_given_up(
    subscribed: Any, receiver: HttpReceiver, settings: Any
) -> None:
    settings.NOTIFICATION_MAX_ATTEMPTS, settings.WEBHOOK_TIMEOUT_SECONDS = 2, 0.3
    notification_settings_update(user=subscribed, email_events=[])
    receiver.delay = 1.0
    with committed():
        notify_sprt_decided(
            sprt_id=2, owner_id=subscribed.pk, new_version="a@v2", old_version="a@v1", verdict="H1 accepted", games=20
        )
    run_notification_tasks()

    notification = Notification.objects.get()
    assert notification.status == "failed" and notification.attempts == 2
    assert notification.last_error == "no answer within 0.3 s"


def test_a_redirect_is_not_followed_and_not_retried(subscribed: Any, receiver: HttpReceiver) -> None:
    notification_settings_update(user=subscribed, email_events=[])
    receiver.status, receiver.location = 302, receiver.url("/elsewhere")
    with committed():
        notify_sprt_decided(
            sprt_id=3, owner_id=subscribed.pk, new_version="a@v2", old_version="a@v1", verdict="H1 accepted", games=20
        )
    run_notification_tasks()

    assert [request["path"] for request in receiver.requests] == ["/hook"]
    notification = Notification.objects.get()
    assert notification.status == "failed" and notification.attempts == 1
    assert notification.last_error == "answered 302 (a redirect, not followed)"


def test_a_mail_server_that_refuses_is_retried_then_given_up(
    subscribed: Any, mailbox: SmtpServer, receiver: HttpReceiver, settings: Any
) -> None:
    settings.NOTIFICATION_MAX_ATTEMPTS = 2
    notification_settings_update(user=subscribed, webhook_events=[])
    mailbox.collector.fail_with = "451 4.3.0 try again later"
    with committed():
        notify_sprt_decided(
            sprt_id=4, owner_id=subscribed.pk, new_version="a@v2", old_version="a@v1", verdict="H1 accepted", games=20
        )
    run_notification_tasks()

    notification = Notification.objects.get()
    assert notification.channel == "email" and notification.status == "failed" and notification.attempts == 2
    assert notification.last_error.startswith("mail: SMTPDataError") and "try again later" in notification.last_error
    assert mailbox.messages == []


# --- Which URLs a webhook may have ------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://93.184.215.14/hook", "the URL must start with https://"),
        ("https://user:secret@93.184.215.14/hook", "the URL must not contain a user name or password"),
        ("https://93.184.215.14:8080/hook", "the port must be one of 443, not 8080"),
        ("https://127.0.0.1/hook", "127.0.0.1 resolves to 127.0.0.1, which is not a public address"),
        ("https://localhost/hook", "which is not a public address"),  # a name that resolves to loopback
        ("https://10.1.2.3/hook", "10.1.2.3 resolves to 10.1.2.3, which is not a public address"),
        ("https://192.168.0.1/", "which is not a public address"),
        ("https://169.254.169.254/latest/meta-data/", "which is not a public address"),  # cloud metadata
        ("https://[::1]/hook", "which is not a public address"),
        ("https://[::ffff:127.0.0.1]/hook", "which is not a public address"),
        ("https://[fd00::1]/hook", "which is not a public address"),
        ("https://224.0.0.1/hook", "which is not a public address"),
        ("https://0.0.0.0/hook", "which is not a public address"),
        ("https://240.0.0.1/hook", "which is not a public address"),
        # IPv6 forms that carry an IPv4 address are judged by it (before, 6to4 loopback passed).
        ("https://[2002:7f00:1::1]/", "2002:7f00:1::1, the 6to4 form of 127.0.0.1, which is not a public"),
        ("https://[2002:a9fe:a9fe::1]/", "the 6to4 form of 169.254.169.254"),
        ("https://[2002:c0a8:1::1]/", "the 6to4 form of 192.168.0.1"),
        ("https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "the Teredo client form of 127.0.0.1"),
        ("https://[2001:0:7f00:1:8000:63bf:3fff:fdd2]/", "the Teredo server form of 127.0.0.1"),
        ("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "which is not a public address"),  # Teredo at all
        ("https://[64:ff9b::7f00:1]/", "the NAT64 form of 127.0.0.1"),
        ("https://[64:ff9b::a00:1]/", "the NAT64 form of 10.0.0.1"),
        ("https://[64:ff9b:1::808:808]/", "which is not a public address"),  # local-use NAT64
        ("https://[::ffff:169.254.169.254]/", "the IPv4-mapped form of 169.254.169.254"),
        ("https://[::127.0.0.1]/", "the IPv4-compatible form of 127.0.0.1"),
        ("https://[::8.8.8.8]/", "which is not a public address"),  # deprecated: refused whatever it carries
        ("https://[::ffff:0:7f00:1]/", "the IPv4-translated form of 127.0.0.1"),
        # Special-purpose blocks of the IANA registries.
        ("https://100.64.0.1/", "which is not a public address"),  # carrier-grade NAT
        ("https://192.0.0.170/", "which is not a public address"),
        ("https://198.18.0.1/", "which is not a public address"),  # benchmarking
        ("https://192.88.99.1/", "which is not a public address"),  # former 6to4 relay anycast
        ("https://[3fff::1]/", "which is not a public address"),  # documentation (RFC 9637)
        ("https://[5f00::1]/", "which is not a public address"),  # SRv6 SIDs
        ("https://[fec0::1]/", "which is not a public address"),  # former site-local
        ("https://[100::1]/", "which is not a public address"),  # discard-only
        ("https://[2001:db8::1]/", "which is not a public address"),
        ("ftp://93.184.215.14/hook", "the URL must start with https:// and name a host"),
        ("https:///hook", "the URL must start with https:// and name a host"),
        ("https://93.184.215.14/a b", "the URL must not contain spaces or control characters"),
        ("https://no-such-host.invalid/hook", "the host no-such-host.invalid cannot be resolved"),
    ],
)
def test_a_webhook_url_is_refused_unless_https_to_a_public_address(url: str, why: str) -> None:
    with pytest.raises(WebhookRefused) as refused:
        webhook_check(url)
    assert why in str(refused.value)


@pytest.mark.parametrize(
    "address",
    ["93.184.215.14", "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]", "[2002:5db8:d70e::1]", "[64:ff9b::5db8:d70e]"],
)
def test_public_addresses_and_the_transition_forms_of_public_ones_are_accepted(address: str) -> None:
    assert webhook_check(f"https://{address}/hook").port == 443


def test_a_public_https_url_is_accepted_and_pinned_to_its_address() -> None:
    target = webhook_check("https://93.184.215.14/services/T000/B000?x=1")
    assert (target.address, target.port, target.path) == ("93.184.215.14", 443, "/services/T000/B000?x=1")


def test_the_loopback_test_setting_allows_loopback_only(settings: Any) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    assert webhook_check("http://127.0.0.1:8123/hook").port == 8123
    with pytest.raises(WebhookRefused, match="must start with https://"):
        webhook_check("http://10.1.2.3:8123/hook")
    with pytest.raises(WebhookRefused, match="not a public address"):
        webhook_check("https://10.1.2.3/hook")


def test_debug_allows_http_and_private_addresses(settings: Any) -> None:
    settings.DEBUG = True
    assert webhook_check("http://10.1.2.3:8080/hook").address == "10.1.2.3"


def test_a_url_is_checked_again_when_sent(subscribed: Any, receiver: HttpReceiver, settings: Any) -> None:
    """Saved while loopback was allowed; by the time it is sent, it no longer is: refused for
    good, nothing posted."""
    notification_settings_update(user=subscribed, email_events=[])
    with committed():
        notify_sprt_decided(
            sprt_id=5, owner_id=subscribed.pk, new_version="a@v2", old_version="a@v1", verdict="H1 accepted", games=20
        )
    settings.WEBHOOK_ALLOW_LOOPBACK = False
    run_notification_tasks()

    notification = Notification.objects.get()
    assert notification.status == "failed" and notification.attempts == 1
    assert notification.last_error == "the URL must start with https://"
    assert receiver.requests == []


def test_bad_settings_change_nothing(alice: Any, settings: Any) -> None:
    from lineit_platform.errors import ApplicationError

    notification_settings_update(user=alice, email_events=["match_finished"], webhook_url="")
    for bad in (
        {"email_events": ["version_validated", "everything"]},
        {"webhook_url": "https://10.0.0.1/hook", "email_events": []},
        {"email": "not an address", "webhook_events": []},
    ):
        with pytest.raises(ApplicationError):
            notification_settings_update(user=alice, **bad)
    chosen = NotificationSettings.objects.get(user=alice)
    assert chosen.email_events == ["match_finished"] and chosen.webhook_url == ""
    assert chosen.webhook_events == list(NotificationEvent.values)  # the default, untouched
    alice.refresh_from_db()
    assert alice.email == "alice@example.org"
