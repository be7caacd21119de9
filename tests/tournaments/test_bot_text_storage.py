"""A bot's text is stored whatever it holds: PostgreSQL refuses NUL in a text column, and a bot
that wrote one to its stderr or its exception message made its whole match unrecordable (the
match went back to the queue, played again, failed again: never lost, never counted)."""

from __future__ import annotations

from typing import Any

import pytest

from bots.models import BotVersion
from bots.services import bot_version_reject, bot_version_validate
from tournaments.models import GameFailure, Match
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_claim, match_release, match_schedule

pytestmark = pytest.mark.django_db

NUL_BOT = b"""import sys

def act(observation):
    sys.stderr.write("before\\x00after\\n")
    raise RuntimeError("nul\\x00in the message")
"""


def test_a_match_whose_bot_writes_nul_is_recorded_with_the_nul_shown(alice: Any, version_factory: Any) -> None:
    versions = [version_factory(bot__owner=alice, code=NUL_BOT), version_factory()]
    match = match_schedule(versions=versions, games=2, ranked=True, seed=5)

    played = match_execute(match_id=match.pk, worker="test")  # the real sandbox

    assert played is not None and played.status == Match.Status.FINISHED
    failures = list(GameFailure.objects.filter(match=match))
    assert len(failures) == 2 and all(failure.kind == "exception" for failure in failures)
    assert all("before\ufffdafter" in failure.stderr_tail for failure in failures)
    assert not any("\x00" in failure.message + failure.stderr_tail for failure in failures)


def test_a_validation_that_quotes_nul_rejects_the_version(alice: Any, version_factory: Any) -> None:
    version = version_factory(bot__owner=alice, code=NUL_BOT, status="validating")

    rejected = bot_version_validate(version_id=version.pk)

    assert rejected.status == BotVersion.Status.REJECTED
    stored = BotVersion.objects.get(pk=version.pk)
    assert "before\ufffdafter" in stored.rejection_stderr and "\x00" not in stored.rejection_reason


def test_a_rejection_or_a_release_quoting_nul_is_stored(version_factory: Any) -> None:
    version = bot_version_reject(version=version_factory(status="validating"), reason="a\x00b", stderr="c\x00d")
    assert BotVersion.objects.get(pk=version.pk).rejection_stderr == "c\ufffdd"

    match = match_schedule(versions=[version_factory(), version_factory()], games=2)
    claimed = match_claim(match_id=match.pk, worker="test")
    assert claimed is not None
    match_release(match_id=match.pk, attempt=claimed.attempts, error="sandbox output: \x00")
    assert Match.objects.get(pk=match.pk).error == "sandbox output: \ufffd"
