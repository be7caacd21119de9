"""The quota of pending test matches holds under concurrency: ten simultaneous requests, through
the page and the API at once, each on its own PostgreSQL connection, make exactly the limit. The
quota's service counts under a lock on the user's row (SELECT ... FOR UPDATE)."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from simultaneous import at_once

from tournaments.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 3
REQUESTS = 10


@override_settings(API_MATCH_QUOTA_PENDING=LIMIT)
def test_simultaneous_requests_from_the_page_and_the_api_make_exactly_the_limit(
    alice: Any, version_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(settings.THROTTLE_RATES, "match_requests", "1000/hour")  # the quota, not the rate
    mine, other = version_factory(bot__owner=alice), version_factory()
    token = Token.objects.create(user=alice).key
    page = Client()
    page.force_login(alice)
    session = page.cookies

    def from_the_page() -> int:
        client = Client()
        client.cookies = session
        form = {"version": mine.pk, "opponents": [other.pk], "games": 2, "ruleset": "standard"}
        return int(client.post(reverse("match-request"), form).status_code)

    def from_the_api() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        body = {"version": mine.pk, "opponents": [other.pk], "games": 2}
        return int(client.post("/api/matches/", body, format="json").status_code)

    statuses = at_once([from_the_page if n % 2 else from_the_api for n in range(REQUESTS)])

    assert Match.objects.filter(requested_by=alice).count() == LIMIT
    created = [status for status in statuses if status in (201, 302)]
    assert len(created) == LIMIT and statuses.count(429) == REQUESTS - LIMIT
