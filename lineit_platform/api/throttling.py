"""The API's door to the throttle service (lineit_platform/throttles.py), which the pages share:
uploads, match requests and token requests are counted there, once, whichever face they came
through. Reads are never throttled. A refusal is raised as ``RateLimited``, which the exception
handler answers with 429 ``throttled`` and ``Retry-After``."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from lineit_platform import throttles


class WriteThrottle(BaseThrottle):
    """The view's ``throttle_scope``, counted per user (per address when anonymous), writes only."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        scope = getattr(view, "throttle_scope", None)
        if request.method not in SAFE_METHODS and scope:
            throttles.hit(scope, throttles.requester_ident(request))
        return True


class TokenThrottle(BaseThrottle):
    """Token requests that need no password check (rotation), counted with the sign-in attempts
    of the client's address."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        throttles.token_hit(request)
        return True
