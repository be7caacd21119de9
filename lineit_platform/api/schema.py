"""The OpenAPI schema: every operation documents the one error shape for the errors it can give."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers
from rest_framework.permissions import SAFE_METHODS


class ErrorDetailSerializer(serializers.Serializer):
    status = serializers.IntegerField()
    code = serializers.CharField(help_text="not_found, invalid, upload_rejected, not_authenticated, ...")
    message = serializers.CharField()
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Messages per input field (validation errors only).",
    )


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


ERROR_DESCRIPTIONS = {
    "400": "Bad input; nothing was changed.",
    "401": "No valid credentials.",
    "403": "Not allowed for this user.",
    "404": "No such object (or page).",
    "409": "Conflicts with the current state.",
    "411": "The request body was sent without a Content-Length (in chunks).",
    "413": "The request body is larger than the platform accepts (REQUEST_MAX_BYTES).",
    "415": "The request body's media type is not one the operation reads (JSON, a form, multipart).",
    "429": "Throttled, or over the quota.",
}


class ErrorAwareAutoSchema(AutoSchema):
    def _error_codes(self) -> list[str]:
        codes = ["400", "401", "403", "404"]
        writes = self.method not in SAFE_METHODS
        if writes and (getattr(self.view, "throttle_scope", None) or getattr(self.view, "throttle_classes", None)):
            codes.append("429")
        if writes:
            codes += ["411", "413", "415"]
        codes += getattr(self.view, "extra_error_codes", {}).get(self.method, [])
        return codes

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        for code in self._error_codes():
            if code not in responses:
                response = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                response["description"] = ERROR_DESCRIPTIONS[code]
                responses[code] = response
        return responses
