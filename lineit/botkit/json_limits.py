"""JSON from anywhere (a replay file, an API request), read with a bound on its nesting.

Python's parser recurses once per level: thousands of ``[`` raise RecursionError (a crash where
nobody catches it), and a document a little below that limit parses but breaks whatever walks it
next (validation, an error message, a renderer). No document Line-it reads nests deeper than a
handful of levels, so ``loads`` refuses anything nested more than ``MAX_DEPTH`` levels with
``JSONTooDeep`` (a ValueError, as every other parse error) before the parser sees it.

The depth is measured on the text before it is parsed, with operations that run in C: escaped
backslashes and quotes removed, then strings, then every byte but brackets; the deepest point is
the largest running sum of +1 for ``[ {`` and -1 for ``] }``. That costs about 0.15 s for a body
of 1 MiB made of nothing but brackets and 2.5 s for a 16 MiB replay file (a text with at most
``MAX_DEPTH`` opening brackets is passed at once); the caller bounds the size of the text.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any, Final

MAX_DEPTH: Final = 32

_STRING: Final = re.compile(rb'"[^"]*"')  # once escaped quotes and backslashes are gone
_NOT_BRACKETS: Final = bytes(sorted(set(range(256)) - set(b"[]{}")))
_STEP: Final = tuple(1 if byte in b"[{" else -1 if byte in b"]}" else 0 for byte in range(256))


class JSONTooDeep(ValueError):
    """The document nests arrays and objects more than the limit allows."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"JSON nested more than {limit} levels deep")
        self.limit = limit


def nesting_exceeds(text: str | bytes, limit: int) -> bool:
    """Whether the JSON text nests arrays and objects more than ``limit`` levels deep (brackets
    inside strings do not count)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    # Inside a string backslashes pair from the left; outside one, valid JSON has none.
    data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > limit


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH, **options: Any) -> Any:
    """``json.loads(text, **options)``, refusing a document nested more than ``max_depth`` levels
    (JSONTooDeep) however deep it goes; other errors are json's own (ValueError)."""
    if nesting_exceeds(text, max_depth):
        raise JSONTooDeep(max_depth)
    try:
        return json.loads(text, **options)
    except RecursionError:  # brackets that do not pair up, deep before the parser finds out
        raise JSONTooDeep(max_depth) from None
