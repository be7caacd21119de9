"""BOT_STORAGE=s3: bot code in an S3-compatible bucket through django-storages, against a real
HTTP S3 endpoint (moto's server, a process of its own). Uploads land in the bucket and nowhere
else; a worker's cache fills from it; an object altered or deleted in the bucket is a platform
failure that says so. And the settings refuse a storage they cannot use, naming the variable."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from bots.code_cache import BotCodeUnavailable, version_code, version_source
from bots.models import BotVersion, StoredCode
from bots.services import bot_create, bot_version_upload
from lineit_platform.settings import env_bot_storage

MOTO_SERVER = Path(sys.executable).with_name("moto_server")
BUCKET = "lineit-bots"
CODE = b"def act(observation):\n    return observation['legal_actions'][-1]\n# kept in a bucket\n"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server on a free port, until the module's tests are done."""
    port = _free_port()
    server = subprocess.Popen(
        [str(MOTO_SERVER), "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        give_up = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > give_up or server.poll() is not None:
                    raise AssertionError("moto_server did not start") from None
                time.sleep(0.2)
        yield endpoint
    finally:
        server.terminate()
        server.wait(30)


@pytest.fixture
def bucket(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """An empty bucket, and the platform configured for it as an operator would: by environment."""
    for name, value in {
        "BOT_STORAGE": "s3",
        "AWS_STORAGE_BUCKET_NAME": BUCKET,
        "AWS_S3_ENDPOINT_URL": s3_endpoint,
        "AWS_S3_REGION_NAME": "us-east-1",
        "AWS_ACCESS_KEY_ID": "lineit-test",
        "AWS_SECRET_ACCESS_KEY": "lineit-test-secret",
    }.items():
        monkeypatch.setenv(name, value)
    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    with override_settings(
        STORAGES={**settings.STORAGES, "bots": env_bot_storage("BOT_STORAGE")}, BOT_CODE_CACHE_DIR=tmp_path / "cache"
    ):
        yield client
    listed = client.list_objects_v2(Bucket=BUCKET).get("Contents", [])
    for item in listed:
        client.delete_object(Bucket=BUCKET, Key=item["Key"])
    client.delete_bucket(Bucket=BUCKET)


@pytest.fixture
def uploaded(bucket: Any, alice) -> BotVersion:  # type: ignore[no-untyped-def]
    bot = bot_create(owner=alice, name="alices-s3")
    version = bot_version_upload(bot=bot, uploaded_by=alice, filename="bot.py", content=CODE, validate=False)
    return BotVersion.objects.select_related("bot").get(pk=version.pk)


@pytest.mark.django_db
def test_an_upload_is_kept_in_the_bucket_and_nowhere_else(uploaded: BotVersion, bucket: Any) -> None:
    key = f"bots/{uploaded.path}"
    assert bucket.get_object(Bucket=BUCKET, Key=key)["Body"].read() == CODE
    assert not StoredCode.objects.filter(name=uploaded.path).exists()
    assert not (Path(settings.MEDIA_ROOT) / uploaded.path).exists()
    assert version_code(uploaded) == CODE


@pytest.mark.django_db
def test_a_worker_cache_fills_from_the_bucket(uploaded: BotVersion) -> None:
    source = version_source(uploaded)
    assert source.path == Path(settings.BOT_CODE_CACHE_DIR) / uploaded.sha256 / "bot.py"
    assert source.path.read_bytes() == CODE


@pytest.mark.django_db
def test_an_object_altered_in_the_bucket_is_a_platform_failure(uploaded: BotVersion, bucket: Any) -> None:
    bucket.put_object(Bucket=BUCKET, Key=f"bots/{uploaded.path}", Body=b"def act(o):\n    return 'x'\n")
    with pytest.raises(BotCodeUnavailable, match="holds other bytes than the version's code"):
        version_source(uploaded)


@pytest.mark.django_db
def test_an_object_deleted_from_the_bucket_is_a_platform_failure(uploaded: BotVersion, bucket: Any) -> None:
    bucket.delete_object(Bucket=BUCKET, Key=f"bots/{uploaded.path}")
    with pytest.raises(BotCodeUnavailable, match="is not in the bot storage"):
        version_source(uploaded)


@pytest.mark.django_db
def test_an_unreachable_bucket_is_a_platform_failure(uploaded: BotVersion, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_S3_ENDPOINT_URL", f"http://127.0.0.1:{_free_port()}")  # nothing listens there
    unreachable = override_settings(STORAGES={**settings.STORAGES, "bots": env_bot_storage("BOT_STORAGE")})
    with unreachable, pytest.raises(BotCodeUnavailable, match="the bot storage did not give its code"):
        version_source(uploaded)


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"BOT_STORAGE": "ftp"}, "BOT_STORAGE must be local or s3, not 'ftp'"),
        ({"BOT_STORAGE": "s3", "AWS_STORAGE_BUCKET_NAME": ""}, "needs AWS_STORAGE_BUCKET_NAME"),
    ],
)
def test_a_storage_the_settings_cannot_use_is_refused(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], message: str
) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ImproperlyConfigured, match=message):
        env_bot_storage("BOT_STORAGE")
