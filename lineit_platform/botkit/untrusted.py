"""Text a bot chose (its name, its exception message, its stderr, anything read from a replay file),
made safe to show to a person: in a terminal, on a page, in the admin.

A terminal obeys escape sequences (set the window title, write the clipboard with OSC 52, clear
the screen, move the cursor), a carriage return rewrites the line it is on, and the Unicode bidi
controls reorder what follows them; a newline would let the text start a line of its own that
looks like the report's. ``safe_text`` writes each of those characters visibly, as Python writes
it in a string literal (``\\x1b``, ``\\r``, ``\\u202e``), so what is shown is what was sent and
nothing else. Everything else (accents, other scripts, emoji) is left as it is.
"""

from __future__ import annotations

import re
from typing import Final

# C0 controls (newline, carriage return and tab included), DEL, C1 controls (CSI 0x9b and NEL
# 0x85 included), the bidi marks, embeddings, overrides and isolates, the invisible zero-width
# characters and the byte order mark, the line and paragraph separators, the interlinear
# annotation marks, and lone surrogates (which a JSON file may hold and no terminal can print).
_OTHER_UNSAFE: Final = (
    "\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff"
)
_UNSAFE: Final = re.compile(f"[\x00-\x1f{_OTHER_UNSAFE}]")
_UNSAFE_BUT_NEWLINE: Final = re.compile(f"[\x00-\x09\x0b-\x1f{_OTHER_UNSAFE}]")
_NAMED: Final = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _visible(found: re.Match[str]) -> str:
    character = found.group()
    named = _NAMED.get(character)
    if named is not None:
        return named
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: object, *, keep_newlines: bool = False) -> str:
    """``text`` with every control character written visibly (``\\x1b``, ``\\u202e``).

    ``keep_newlines`` keeps ``\\n`` as a line break: only for a block whose every line the caller
    indents or prefixes itself (a stderr tail under a failure), so no line can pass for one of
    the caller's own. Anything that is not a string is shown as ``str()`` shows it.
    """
    string = text if isinstance(text, str) else str(text)
    return (_UNSAFE_BUT_NEWLINE if keep_newlines else _UNSAFE).sub(_visible, string)


def safe_lines(text: object) -> list[str]:
    """A multi-line block as safe single lines, split at newlines only (a carriage return, a form
    feed or a Unicode line separator inside a line is shown, not obeyed)."""
    string = text if isinstance(text, str) else str(text)
    return [safe_text(line) for line in string.split("\n")]


def storable_text(text: str) -> str:
    """``text`` as a database text column can hold it: PostgreSQL refuses NUL in text, so a bot
    that wrote one to its stderr (or its exception message) would make its whole match
    unrecordable. A NUL becomes U+FFFD, as an undecodable byte of the bot's output already does."""
    return text.replace("\x00", "\ufffd")
