"""Requests refused before they are read: too large (413), too many fields or files (400).

``RequestSizeLimitMiddleware`` comes in ``MIDDLEWARE`` right after the three that only set
headers (security, Content-Security-Policy, X-Frame-Options: a refusal carries them as any
response does): a request whose ``Content-Length`` exceeds ``REQUEST_MAX_BYTES`` is answered at
once, before anything reads its body, so a 200 MB upload never reaches memory or a temporary file.
A body sent without a length (``Transfer-Encoding: chunked``) is refused with 411: Django reads
only as many bytes as ``Content-Length`` says, so such a body would be read as empty, and an
upload told "no file was submitted". Django's own limits (settings: DATA_UPLOAD_MAX_*,
FILE_UPLOAD_MAX_MEMORY_SIZE) catch what is read anyway; the API's exception handler answers them
in the API's error shape, and ``bad_request`` (the project's ``handler400``) everywhere else: an
/api/ address gets the same JSON shape, a page a plain error page.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from lineit_platform.api.errors import error_body, request_refusal

API_PREFIX = "/api/"


def declared_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0  # Django reads such a body as empty


def refusal_response(request: HttpRequest, status: int, code: str, message: str) -> HttpResponse:
    """One refusal, as the asker reads errors: the API's shape, the upload page's JSON, or a page."""
    if request.path_info.startswith(API_PREFIX):
        return JsonResponse(error_body(status, code, message), status=status)
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"errors": [message]}, status=status)
    return render(request, "request_refused.html", {"status": status, "message": message}, status=status)


class RequestSizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.META.get("HTTP_TRANSFER_ENCODING") and not request.META.get("CONTENT_LENGTH"):
            message = (
                "The request body has no Content-Length (it is sent in chunks); send it with its length, "
                f"at most {settings.REQUEST_MAX_BYTES} bytes."
            )
            return refusal_response(request, 411, "length_required", message)
        size = declared_length(request)
        if size > settings.REQUEST_MAX_BYTES:
            message = (
                f"The request is {size} bytes; the platform accepts at most {settings.REQUEST_MAX_BYTES} "
                f"(a bot file at most {settings.BOT_UPLOAD_MAX_BYTES})."
            )
            return refusal_response(request, 413, "request_too_large", message)
        return self.get_response(request)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400: a request Django refused to read (too many fields, too large...) or any other
    SuspiciousOperation outside the API's views, without a trace of the internals."""
    if isinstance(exception, SuspiciousOperation):
        status, code, message = request_refusal(exception)
    else:
        status, code, message = 400, "bad_request", "The request could not be read."
    return refusal_response(request, status, code, message)
