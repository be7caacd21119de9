"""The API's JSON parser: DRF's, with a bound on nesting (lineit/botkit/json_limits.py).

DRF's ``JSONParser`` calls ``json.load`` and turns only a ValueError into a 400: a body of a few
kilobytes of ``[`` raised RecursionError, a 500 on any operation that reads its body, the
anonymous ``POST /api/auth/token/`` included. Here a body nested more than ``MAX_DEPTH`` levels is
a ``parse_error`` (400) saying so; the size of a body is bounded before it is read
(REQUEST_MAX_BYTES, lineit_platform/request_limits.py), and forms and multipart bodies have no
nesting (Django bounds their fields and files: DATA_UPLOAD_MAX_*).
"""

from __future__ import annotations

import codecs
from typing import Any

from django.conf import settings
from rest_framework import renderers
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.settings import api_settings
from rest_framework.utils import json

from lineit.botkit import json_limits


class BoundedJSONParser(JSONParser):
    renderer_class = renderers.JSONRenderer
    strict = api_settings.STRICT_JSON

    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict[str, Any] | None = None) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.getreader(encoding)(stream).read()
            parse_constant = json.strict_constant if self.strict else None
            return json_limits.loads(text, parse_constant=parse_constant)
        except json_limits.JSONTooDeep as error:
            raise ParseError(f"JSON parse error - the body is {error}; the API reads at most that.") from None
        except ValueError as error:  # UnicodeDecodeError and json's own errors, as DRF says them
            raise ParseError(f"JSON parse error - {error}") from None
