"""Sources built to break ``compile()`` are refused with a 400 saying why, through the API, the
upload page and inside a zip, and checking them costs the web process next to no CPU: it is done
by a child process with limits (bots/source_check.py)."""

from __future__ import annotations

import io
import resource
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots.models import BotVersion
from bots.uploads import UploadLimits, UploadRejected, check_upload

MiB = 1024 * 1024
HOSTILE = {
    # RecursionError from the compiler: 200 KB was a 500 after 0.6 s, 800 KB after 2.1 s of CPU.
    "1+1+... 200 KB": ("x = " + "1+" * 100_000 + "1\n", "nest too deeply"),
    "1+1+... 800 KB": ("x = " + "1+" * 400_000 + "1\n", "nest too deeply"),
    "calls f()()() 1 MB": ("x = f" + "()" * (MiB // 2 - 8) + "\n", "nest too deeply"),
    # MemoryError from the parser.
    "unary minus 1 MB": ("x = " + "-" * (MiB - 10) + "1\n", "nest too deeply|takes more than"),
    "lambdas 1 MB": ("x = " + "lambda: " * (MiB // 8 - 2) + "1\n", "nest too deeply|takes more than"),
    "null byte": ("x = 1\x00\n", "null bytes"),
}
# Compiles, but 0.85 s of CPU: before, all of it the web process's.
COSTLY_BUT_VALID = "x = " + "a < " * (MiB // 4 - 2) + "a\n"
LIMITS = UploadLimits(max_bytes=2 * MiB)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_source_that_breaks_the_compiler_is_refused_saying_why(name: str) -> None:
    source, why = HOSTILE[name]
    with pytest.raises(UploadRejected, match=why):
        check_upload("bot.py", source.encode(), LIMITS)
    package = io.BytesIO()
    with zipfile.ZipFile(package, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.py", source)
    with pytest.raises(UploadRejected, match=why):
        check_upload("bot.zip", package.getvalue(), UploadLimits(max_bytes=2 * MiB, max_ratio=10_000))


def test_checking_an_upload_costs_the_web_process_next_to_no_cpu() -> None:
    before = cpu_seconds()
    assert check_upload("bot.py", COSTLY_BUT_VALID.encode(), LIMITS) == "py"
    with pytest.raises(UploadRejected):
        check_upload("bot.py", HOSTILE["calls f()()() 1 MB"][0].encode(), LIMITS)
    assert cpu_seconds() - before < 0.25  # the compiling is the child's, bounded by its own limits


@pytest.mark.django_db
def test_the_api_and_the_page_answer_400(alice: Any, bot_factory: Any, client: Any) -> None:
    bot = bot_factory(name="deep", owner=alice)
    token, _ = Token.objects.get_or_create(user=alice)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    client.force_login(alice)
    source = HOSTILE["1+1+... 200 KB"][0].encode()
    handle = io.BytesIO(source)
    handle.name = "bot.py"
    response = api.post(f"/api/bots/{bot.pk}/versions/", {"file": handle}, format="multipart")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "upload_rejected"
    assert "nest too deeply" in response.json()["error"]["message"]
    page = client.post(reverse("bot-upload", args=["deep"]), {"code": SimpleUploadedFile("bot.py", source)})
    assert page.status_code in (200, 400) and "nest too deeply" in page.content.decode()
    assert not BotVersion.objects.filter(bot=bot).exists()
