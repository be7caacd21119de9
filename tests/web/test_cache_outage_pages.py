"""The pages during a Redis outage under the cache "api" (lineit_platform/redis_cache.py): sign-up,
sign-in, uploading and the pages that read answer as they would with no cache; the throttles they
share with the API count nothing until Redis is back (they fail open)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse
from redis_server import free_port

from bots.models import BotVersion

pytestmark = pytest.mark.django_db

BOT = b"def act(observation):\n    return observation['legal_actions'][0]\n"


def dead_cache() -> dict[str, object]:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    options = {
        "socket_connect_timeout": settings.API_CACHE_TIMEOUT_SECONDS,
        "socket_timeout": settings.API_CACHE_TIMEOUT_SECONDS,
    }
    return {**settings.CACHES, "api": {"BACKEND": settings.REDIS_CACHE_BACKEND, "LOCATION": url, "OPTIONS": options}}


def test_a_visitor_signs_up_signs_in_and_uploads_while_redis_is_down(client, played, bot_factory) -> None:  # type: ignore[no-untyped-def]
    with override_settings(CACHES=dead_cache()):
        for page in [
            reverse("home"),
            reverse("bot-detail", args=["alices-bot"]),
            reverse("match-detail", args=[played["first"].pk]),
        ]:
            assert client.get(page).status_code == 200, page
        signed_up = client.post(
            reverse("signup"), {"username": "dora", "password1": "wonderland-42", "password2": "wonderland-42"}
        )
        assert signed_up.status_code == 302, signed_up.content.decode()[:500]
        client.logout()
        signed_in = client.post(reverse("login"), {"username": "dora", "password": "wonderland-42"})
        assert signed_in.status_code == 302 and signed_in.url == reverse("my-bots")
        bot = bot_factory(name="doras-bot", owner=signed_in.wsgi_request.user)
        uploaded = client.post(reverse("bot-upload", args=[bot.name]), {"code": SimpleUploadedFile("bot.py", BOT)})
        assert uploaded.status_code == 302, uploaded.content.decode()[:500]
        assert BotVersion.objects.get(bot=bot).status == "validating"
