"""Schemathesis against the live schema: for inputs generated from the schema of every operation,
the API never answers with a server error and every answer (status, content type, body) is one
the schema documents. A modest number of examples per operation keeps it well under a minute."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from api_helpers import client_for, play
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from lineit_platform.wsgi import application

pytestmark = pytest.mark.django_db

EXAMPLES_PER_OPERATION = 10
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


# The live schema, fetched from the running application (no database needed to serve it).
# (schemathesis.pytest.from_fixture would load it per test, but fails on pytest 9's nodes.)
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)


@pytest.fixture(autouse=True)
def _keep_the_test_transaction() -> Iterator[None]:
    """The WSGI handler closes "old" database connections around each request, which would close
    the test's transaction; Django's own test client disconnects the same signal handler."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def alice_token(alice: Any, bob: Any, version_factory: Any) -> str:
    """Something to find (alice's and bob's versions, a finished ranked match with games and
    ratings) and alice's token: the fuzzer acts as a signed-in owner."""
    mine, theirs = version_factory(bot__owner=alice), version_factory(bot__owner=bob)
    play([mine, theirs], ranked=True, games=2)
    return str(client_for(alice)._credentials["HTTP_AUTHORIZATION"])


@schema.parametrize()
@hypothesis_settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_every_operation_conforms_to_the_schema(case: Any, alice_token: str) -> None:
    # identity: the WSGI client schemathesis drives asks for gzip but does not decompress it (the
    # site compresses what a real client asks for: tests/web/test_browser.py checks that)
    headers = {"Authorization": alice_token, "Accept-Encoding": "identity"}
    case.call_and_validate(headers=headers, checks=CHECKS)
