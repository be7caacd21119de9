"""A damaged file does not break a version. 11 bytes appended to a version's file under MEDIA_ROOT
made every match of it fail (3 attempts) although the database's copy was intact, and the owner's
download served the damaged bytes. Now every read of bot code is checked against the version's
sha256 (the worker's cache fill for matches and validations, the download on the API and the
pages): the intact copy is served and run, the file is written again from it, an operator sees an
error in the log and the metric ``lineit_bot_code_damaged_total``; with no intact copy anywhere,
the code is refused, never served or run."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings
from rest_framework.test import APIClient

from bots.code_cache import BotCodeUnavailable, version_code, version_source
from bots.models import BotVersion, StoredCode
from bots.services import bot_create, bot_version_upload, bot_version_validate
from lineit.botkit.limits import Limits
from lineit_platform.metrics import BOT_CODE_DAMAGED
from lineit_platform.models import MetricTally
from tournaments.services.matches.execution import match_execute
from tournaments.services.matches.states import match_schedule

pytestmark = pytest.mark.django_db

QUICK = Limits(move_seconds=0.05, bank_seconds=1, move_timeout_seconds=0.5, startup_seconds=5)
APPENDED = b"\nimport os\n"  # 11 bytes, as the audit appended


@pytest.fixture
def cache(tmp_path: Path) -> Any:
    with override_settings(BOT_CODE_CACHE_DIR=tmp_path / "cache"):
        yield tmp_path / "cache"


@pytest.fixture
def version(alice: Any, cache: Path) -> BotVersion:
    code = b"def act(observation):\n    return observation['legal_actions'][0]\n" + f"# {cache}\n".encode()
    made = bot_version_upload(
        bot=bot_create(owner=alice, name="alices-intact"), uploaded_by=alice, filename="bot.py", content=code
    )
    return made


def local_file(version: BotVersion) -> Path:
    return Path(settings.MEDIA_ROOT) / version.path


def damaged(outcome: str) -> float:
    found = MetricTally.objects.filter(name=BOT_CODE_DAMAGED, label=outcome).values_list("value", flat=True).first()
    return found or 0.0


def download(user: Any, version: BotVersion) -> Any:
    client = APIClient()
    client.force_authenticate(user)
    return client.get(f"/api/versions/{version.pk}/source/")


def test_a_file_appended_to_is_validated_played_and_downloaded_intact_and_written_again(
    version: BotVersion, alice: Any, bob: Any, version_factory: Any, cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    intact = local_file(version).read_bytes()
    with local_file(version).open("ab") as handle:
        handle.write(APPENDED)

    # The validation reads the intact copy (before: the damaged bytes' hash failed it)
    with caplog.at_level(logging.ERROR, logger="bots.storage"):
        assert bot_version_validate(version_id=version.pk).status == BotVersion.Status.ACTIVE
    assert local_file(version).read_bytes() == intact  # written again from the database's copy
    assert "was damaged" in caplog.text and version.path in caplog.text
    assert damaged("repaired") == 1.0
    version.refresh_from_db()

    # Damaged again: a match on a worker that has not cached it yet plays (before: every match of
    # the version failed, 3 attempts)
    with local_file(version).open("ab") as handle:
        handle.write(APPENDED)
    shutil.rmtree(cache)
    match = match_execute(
        match_id=match_schedule(versions=[version, version_factory(bot__owner=bob)], games=2, limits=QUICK).pk,
        worker="test",
    )
    assert match is not None and match.status == "finished"
    assert local_file(version).read_bytes() == intact

    # Damaged again: the owner downloads the upload, not the damaged bytes (before: the damaged ones)
    with local_file(version).open("ab") as handle:
        handle.write(APPENDED)
    response = download(alice, version)
    assert response.status_code == 200 and b"".join(response.streaming_content) == intact
    assert local_file(version).read_bytes() == intact
    assert damaged("repaired") == 3.0


def test_a_worker_cache_filled_from_a_damaged_file_gets_the_intact_code(version: BotVersion, cache: Path) -> None:
    intact = local_file(version).read_bytes()
    local_file(version).write_bytes(intact[:-5])  # cut short, this time
    assert version_source(version).path.read_bytes() == intact
    assert version_code(version) == intact


def test_with_no_intact_copy_the_code_is_refused_never_served_or_run(
    version: BotVersion, alice: Any, caplog: pytest.LogCaptureFixture
) -> None:
    evil = b"import os\ndef act(observation):\n    os.system('x')\n"
    local_file(version).write_bytes(evil)
    StoredCode.objects.filter(name=version.path).update(content=evil)
    with pytest.raises(BotCodeUnavailable, match="holds other bytes than the version's code"):
        version_source(version)
    with caplog.at_level(logging.WARNING):
        response = download(alice, version)
    assert response.status_code == 503 and b"os.system" not in response.content
    assert response.json()["error"]["code"] == "unavailable"
    assert "damaged in the database too" in caplog.text
    assert damaged("unrecoverable") == 2.0  # the worker's read and the download's


def test_a_store_that_holds_other_bytes_than_the_version_is_refused(version: BotVersion, alice: Any) -> None:
    """The bytes are the store's own (both copies agree), yet not the version's: an object replaced
    in a bucket, or a row rewritten whole. The version's sha256 refuses them."""
    other = b"def act(observation):\n    return observation['legal_actions'][-1]\n"
    local_file(version).write_bytes(other)
    StoredCode.objects.filter(name=version.path).update(content=other, sha256="")
    with pytest.raises(BotCodeUnavailable, match="holds other bytes than the version's code"):
        version_code(version)
    assert download(alice, version).status_code == 503
    assert damaged("unrecoverable") == 2.0


def test_the_metric_is_scraped(client: Any, settings: Any, version: BotVersion) -> None:
    settings.METRICS_TOKEN = "m" * 32
    local_file(version).write_bytes(b"garbage")
    version_code(version)
    text = client.get("/metrics", headers={"Authorization": "Bearer " + "m" * 32}).content.decode()
    assert 'lineit_bot_code_damaged_total{outcome="repaired"} 1.0' in text
    assert 'lineit_bot_code_damaged_total{outcome="unrecoverable"} 0.0' in text
