"""JSON written by orjson: DRF's JSON renderer spends several times as long in ``json.dumps``.

The bytes are DRF's (compact, UTF-8, U+2028 and U+2029 escaped, date-times and anything else
orjson does not write itself left to DRF's encoder); a float may be spelled differently (``1e16``
for ``1e+16``), never with another value. Indented output (``Accept: application/json;
indent=4``) and anything orjson refuses (integers past 64 bits) go to DRF's renderer.
"""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
_ENCODER = JSONEncoder()


class FastJSONRenderer(JSONRenderer):
    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: dict[str, Any] | None = None
    ) -> bytes:
        if data is None or self.get_indent(accepted_media_type or "", renderer_context or {}) is not None:
            return bytes(super().render(data, accepted_media_type, renderer_context))
        try:
            text = orjson.dumps(data, default=_ENCODER.default, option=_OPTIONS)
        except orjson.JSONEncodeError:
            return bytes(super().render(data, accepted_media_type, renderer_context))
        if b"\xe2\x80" in text:  # U+2028 and U+2029 are valid JSON, yet not JavaScript
            text = text.replace("\u2028".encode(), b"\\u2028").replace("\u2029".encode(), b"\\u2029")
        return text


# The busiest views' renderers: JSON first (the default), the browsable API for browsers.
RENDERERS = [FastJSONRenderer, BrowsableAPIRenderer]
