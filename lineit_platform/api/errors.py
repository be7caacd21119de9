"""The one error shape of the API, and the one exception handler that produces it.

Every error, whatever raised it, reaches the client as::

    {"error": {"status": 404, "code": "not_found", "message": "No match 12.", "fields": {}}}

``fields`` maps an input field to its messages (validation errors only). Services raise the
application errors of ``lineit_platform.errors``; DRF raises its own; anything else is a server
error, logged with its traceback and answered with the same shape (no traceback leaks out).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from lineit_platform.errors import ApplicationError

logger = logging.getLogger(__name__)

# The HTTP status of each application error code; any other code is a 400.
APPLICATION_STATUS = {
    "not_found": status.HTTP_404_NOT_FOUND,
    "forbidden": status.HTTP_403_FORBIDDEN,
    "conflict": status.HTTP_409_CONFLICT,
    "unavailable": status.HTTP_503_SERVICE_UNAVAILABLE,
    "quota_exceeded": status.HTTP_429_TOO_MANY_REQUESTS,
    "throttled": status.HTTP_429_TOO_MANY_REQUESTS,
}


def request_refusal(error: SuspiciousOperation) -> tuple[int, str, str]:
    """Status, code and message for a request Django refused to read (its limits on the body and
    the number of fields, DATA_UPLOAD_MAX_*), for the API and the pages alike."""
    if isinstance(error, RequestDataTooBig):
        return (
            413,
            "request_too_large",
            f"The request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes.",
        )
    if isinstance(error, TooManyFieldsSent):
        return 400, "too_many_fields", f"The request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields."
    if isinstance(error, TooManyFilesSent):
        return 400, "too_many_files", f"The request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files."
    return 400, "bad_request", "The request could not be read."


def error_body(status_code: int, code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"status": status_code, "code": code, "message": message, "fields": fields or {}}}


def _flatten(detail: Any) -> list[str]:
    if isinstance(detail, dict):
        return [f"{key}: {text}" for key, value in detail.items() for text in _flatten(value)]
    if isinstance(detail, list):
        return [text for item in detail for text in _flatten(item)]
    return [str(detail)]


def _validation_body(error: exceptions.ValidationError) -> dict[str, Any]:
    detail = error.detail
    if isinstance(detail, dict):
        fields = {key: _flatten(value) for key, value in detail.items() if key != "non_field_errors"}
        general = _flatten(detail.get("non_field_errors", []))
        message = "; ".join(general + [f"{key}: {' '.join(texts)}" for key, texts in fields.items()])
    else:
        fields, message = {}, "; ".join(_flatten(detail))
    return error_body(400, "invalid", message or "invalid input", fields)


def _api_exception(error: exceptions.APIException) -> Response:
    if isinstance(error, exceptions.ValidationError):
        body = _validation_body(error)
    else:
        codes = error.get_codes()
        code = codes if isinstance(codes, str) else "error"
        body = error_body(error.status_code, code, " ".join(_flatten(error.detail)))
    headers = {}
    if getattr(error, "auth_header", None):
        headers["WWW-Authenticate"] = error.auth_header
    if getattr(error, "wait", None):
        headers["Retry-After"] = str(int(error.wait))
    return Response(body, status=error.status_code, headers=headers)


def api_exception_handler(error: Exception, context: dict[str, Any]) -> Response:
    """DRF's EXCEPTION_HANDLER: every exception raised in an API view becomes one error body."""
    if isinstance(error, Http404):
        error = exceptions.NotFound(str(error) or "Not found.")
    elif isinstance(error, DjangoPermissionDenied):
        error = exceptions.PermissionDenied(str(error) or None)
    elif isinstance(error, DjangoValidationError):
        error = exceptions.ValidationError(error.message_dict if hasattr(error, "error_dict") else error.messages)
    if isinstance(error, exceptions.APIException):
        response = _api_exception(error)
    elif isinstance(error, ApplicationError):
        code = APPLICATION_STATUS.get(error.code, status.HTTP_400_BAD_REQUEST)
        response = Response(error_body(code, error.code, error.message, error.extra.get("fields")), status=code)
        if "retry_after" in error.extra:
            response["Retry-After"] = str(error.extra["retry_after"])
    elif isinstance(error, SuspiciousOperation):  # Django refused to read the request (a 400, as Django does)
        code, name, message = request_refusal(error)
        logger.warning("refused to read an API request: %s", error)
        response = Response(error_body(code, name, message), status=code)
    else:
        view = context.get("view")
        logger.exception("API server error in %s", type(view).__name__ if view else "an API view")
        response = Response(
            error_body(500, "server_error", "The server failed to answer; the error has been logged."),
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )
    set_rollback()  # nothing an error request wrote survives it
    return response


@csrf_exempt
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """The answer to any /api/ address that names no endpoint."""
    return JsonResponse(error_body(404, "not_found", f"No API endpoint at {request.path}."), status=404)
