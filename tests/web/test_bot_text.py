"""A bot's text on the pages and in the admin: Django escapes it for HTML, and the `visible`
filter (the command line's safe_text) shows its control characters and bidi overrides escaped,
so nothing it sent reorders or hides what the page says around it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from bots.code_cache import version_source
from bots.services import bot_version_reject
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from tournaments.models import GameFailure, Match
from tournaments.services.matches.results import match_record_result
from tournaments.services.matches.states import match_claim, match_schedule, match_spec

pytestmark = pytest.mark.django_db

PAYLOAD = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\rPassed\u202edegrof\u2028\x9b31m\x7f"
VISIBLE = "\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\rPassed\\u202edegrof\\u2028\\x9b31m\\x7f"
HOSTILE_BOT = f"""import sys

PAYLOAD = {PAYLOAD!r}


def act(observation):
    print(PAYLOAD, file=sys.stderr)
    raise RuntimeError(PAYLOAD)
""".encode()
RAW = ("\x1b", "\x07", "\r", "\x9b", "\u202e", "\u2028", "\x7f")


def assert_no_raw_control(html: str) -> None:
    assert not [character for character in RAW if character in html]


@pytest.fixture
def hostile_match(alice: Any, version_factory: Any) -> Match:
    """alice's bot fails with the payload as its message and its stderr; the match's error
    (a platform message that may quote a sandbox's output) carries it too."""
    versions = [version_factory(bot__owner=alice, code=HOSTILE_BOT), version_factory()]
    match = match_schedule(versions=versions, games=2, seed=3)
    claimed = match_claim(match_id=match.pk, worker="web-tests")
    assert claimed is not None
    result = run_match(match_spec(claimed), [InProcessPlayer(version_source(version)) for version in versions])
    assert match_record_result(match_id=match.pk, attempt=claimed.attempts, result=result)
    Match.objects.filter(pk=match.pk).update(error=PAYLOAD)
    assert all(PAYLOAD in failure.message for failure in GameFailure.objects.filter(match=match))
    return Match.objects.get(pk=match.pk)


@pytest.fixture
def hostile_rejection(alice: Any, version_factory: Any) -> Any:
    version = version_factory(bot__owner=alice, bot__name="hostile", status="validating", original_name=f"{PAYLOAD}.py")
    reason = f"validation game failed: exception in game 1, decision 0: RuntimeError: {PAYLOAD}"
    return bot_version_reject(version=version, reason=reason, stderr=f"Traceback\n{PAYLOAD}\nRuntimeError")


def test_the_owner_sees_the_failure_message_and_stderr_escaped_on_the_match_page(client, alice, hostile_match) -> None:  # type: ignore[no-untyped-def]
    client.force_login(alice)
    html = client.get(reverse("match-detail", args=[hostile_match.pk])).content.decode()

    assert_no_raw_control(html)
    assert html.count(VISIBLE) >= 4  # the error, the messages and the stderr tails, shown
    assert re.search(r'<pre class="stderr"[^>]*>Traceback', html)  # the stderr keeps its lines


def test_the_owner_sees_the_rejection_escaped_and_the_file_name_too(client, alice, hostile_rejection) -> None:  # type: ignore[no-untyped-def]
    client.force_login(alice)
    page = client.get(reverse("version-detail", args=["hostile", hostile_rejection.number])).content.decode()
    status = client.get(reverse("version-status", args=["hostile", hostile_rejection.number])).json()
    mine = client.get(reverse("my-bots")).content.decode()

    for html in (page, mine):
        assert_no_raw_control(html)
    assert page.count(VISIBLE) == 3  # file name, message, stderr
    assert "RuntimeError: " + VISIBLE in page and f"\n{VISIBLE}\n" in page
    assert status["message"] == "RuntimeError: " + VISIBLE and status["stderr"] == f"Traceback\n{VISIBLE}\nRuntimeError"


@pytest.mark.parametrize(
    "url",
    [
        lambda match, version: reverse("admin:tournaments_gamefailure_changelist"),
        lambda match, version: reverse(
            "admin:tournaments_gamefailure_change",
            args=[match.failures.first().pk],  # type: ignore[union-attr]
        ),
        lambda match, version: reverse("admin:tournaments_match_change", args=[match.pk]),
        lambda match, version: reverse("admin:bots_botversion_change", args=[version.pk]),
        lambda match, version: reverse("admin:bots_bot_change", args=[version.bot_id]),
    ],
    ids=["failure list", "failure", "match with its failures", "version", "bot with its versions"],
)
def test_the_admin_shows_the_bots_text_escaped(client, staff, hostile_match, hostile_rejection, url) -> None:  # type: ignore[no-untyped-def]
    client.force_login(staff)
    response = client.get(url(hostile_match, hostile_rejection))

    assert response.status_code == 200
    html = response.content.decode()
    assert_no_raw_control(html)
    assert VISIBLE in html
