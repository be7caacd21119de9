"""Text a bot chose (its name, its exception message, its stderr, anything read from a replay file),
made safe to show to a person: in a terminal, on a page, in the admin.

A terminal obeys escape sequences (set the window title, write the clipboard with OSC 52, clear
the screen, move the cursor), a carriage return rewrites the line it is on, the Unicode bidi
controls reorder what follows them, and format characters hide text (a soft hyphen, the tag
characters that smuggle ASCII invisibly, zero-width spaces); a newline would let the text start
a line of its own that looks like the report's. ``safe_text`` writes each character that Python
itself would not print in a string's repr() (``str.isprintable``: controls, format characters,
surrogates, private use, unassigned code points, every separator but the space) visibly, as
Python writes it in a string literal (``\\x1b``, ``\\r``, ``\\u202e``, ``\\U000e0041``), so what
is shown is what was sent and nothing else. A combining mark stays on its letter; one with no
letter of its own to sit on (it would sit on the report's text) and a stack of more than four on
one letter are shown too. Everything else (accents, other scripts, emoji) is left as it is.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Final

MAX_MARKS: Final = 4  # combining marks on one letter: every script's accents fit, a tall stack does not
_COMBINING: Final = frozenset(("Mn", "Me"))
_ASCII_UNSAFE: Final = re.compile("[\x00-\x1f\x7f]")
_ASCII_UNSAFE_BUT_NEWLINE: Final = re.compile("[\x00-\x09\x0b-\x1f\x7f]")
_NAMED: Final = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(character: str) -> str:
    named = _NAMED.get(character)
    if named is not None:
        return named
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _visible(found: re.Match[str]) -> str:
    return _escaped(found.group())


def _shown(string: str, keep_newlines: bool) -> Iterator[str]:
    marks = -1  # combining marks on the letter before; -1: no letter of the text's own to sit on
    for character in string:
        if character == "\n" and keep_newlines:
            marks = -1
            yield character
        elif not character.isprintable():
            marks = -1
            yield _escaped(character)
        elif unicodedata.category(character) in _COMBINING:
            if 0 <= marks < MAX_MARKS:
                marks += 1
                yield character
            else:
                yield _escaped(character)
        else:
            marks = 0
            yield character


def safe_text(text: object, *, keep_newlines: bool = False, max_length: int | None = None) -> str:
    """``text`` with every control or invisible character written visibly (``\\x1b``, ``\\u202e``).

    ``keep_newlines`` keeps ``\\n`` as a line break: only for a block whose every line the caller
    indents or prefixes itself (a stderr tail under a failure), so no line can pass for one of
    the caller's own. ``max_length`` cuts a text longer than that many characters (before
    escaping) and says how many were left out. Anything that is not a string is shown as
    ``str()`` shows it.
    """
    string = text if isinstance(text, str) else str(text)
    cut = ""
    if max_length is not None and len(string) > max_length:
        string, cut = string[:max_length], f"… ({len(string) - max_length:,} more characters)"
    if string.isascii():  # the usual case, and a fast one
        pattern = _ASCII_UNSAFE_BUT_NEWLINE if keep_newlines else _ASCII_UNSAFE
        return pattern.sub(_visible, string) + cut
    return "".join(_shown(string, keep_newlines)) + cut


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
