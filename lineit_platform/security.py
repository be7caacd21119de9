"""The Content-Security-Policy header, on every response.

The pages load nothing from elsewhere and run no inline code: every script and style sheet is a
static file of this site (lineit_platform/web/static/web/, the admin's, drf-spectacular-sidecar's),
so the policy is strict: ``'self'`` only, no inline script or style, no plugins, no framing.
tests/web/test_content_security_policy.py holds the templates to that (no ``<script>`` body, no
``style`` attribute, no ``<style>``) and drives Chromium through the pages, the admin and the API
documentation, failing on any violation.

A view that needs a looser policy sets the header itself (``with_policy``); the middleware keeps
a header already set.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"

STRICT: dict[str, str] = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",  # the admin's and Swagger UI's icons are data: URIs in their CSS
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


def policy(directives: dict[str, str]) -> str:
    return "; ".join(f"{name} {value}" for name, value in directives.items())


SITE_POLICY = policy(STRICT)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if HEADER not in response.headers:
            response.headers[HEADER] = SITE_POLICY
        return response


def with_policy(directives: dict[str, str]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A view decorator: this view's responses carry ``directives`` (the strict policy's, with
    these names replaced or added) instead of the site's policy."""
    header = policy({**STRICT, **directives})

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            response = view(*args, **kwargs)
            response.headers[HEADER] = header
            return response

        return wrapped

    return decorate
