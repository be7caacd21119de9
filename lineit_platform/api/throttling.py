"""Rate limits on the operations that cost the platform work: uploads (each one runs a validation
game), match requests, and token requests (password guessing). Reads are never throttled.

Counts live in the cache named "api" (settings: API_CACHE_URL); rates in REST_FRAMEWORK's
DEFAULT_THROTTLE_RATES (API_THROTTLE_* variables)."""

from __future__ import annotations

from django.core.cache import caches
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle
from rest_framework.views import APIView


class WriteThrottle(ScopedRateThrottle):
    """The view's ``throttle_scope``, counted per user (per address when anonymous), writes only."""

    cache = caches["api"]

    def allow_request(self, request: Request, view: APIView) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)


class TokenThrottle(SimpleRateThrottle):
    """Token requests, counted per client address."""

    cache = caches["api"]
    scope = "tokens"

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
