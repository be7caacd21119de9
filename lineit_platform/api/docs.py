"""The API documentation pages under the site's Content-Security-Policy (lineit_platform/security.py),
from drf-spectacular-sidecar's files: nothing loaded from elsewhere, no inline script.

Swagger UI's set-up script is a file of its own (drf-spectacular's split view, ``?script``).
Redoc draws with styled-components, which creates empty ``<style>`` elements and fills them
through the CSSOM, and its bundle adds one fixed stylesheet of its own: its page allows exactly
those two contents, by hash, and no other inline style; its search runs in a worker the bundle
makes from a blob. A Redoc whose stylesheet changed is caught by
tests/web/test_content_security_policy.py (Chromium reports the violation). Redoc's "API docs by
Redocly" logo is an image on Redocly's site: the policy blocks it, as it should."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.request import Request
from rest_framework.response import Response

from lineit_platform.security import HEADER, STRICT, policy

__all__ = ["RedocView", "SpectacularSwaggerSplitView"]

REDOC_STYLES = (
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",  # the empty string: styled-components' elements
    "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='",  # the stylesheet in Redoc 2.5's bundle
)
REDOC_POLICY = policy({**STRICT, "style-src": " ".join(("'self'", *REDOC_STYLES)), "worker-src": "'self' blob:"})


class RedocView(SpectacularRedocView):
    @extend_schema(exclude=True)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response = super().get(request, *args, **kwargs)
        response.headers[HEADER] = REDOC_POLICY
        return response
