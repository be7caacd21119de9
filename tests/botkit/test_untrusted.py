"""safe_text: a bot's text shown to a person obeys nothing and hides nothing."""

from __future__ import annotations

import unicodedata

import pytest

from lineit_platform.botkit.untrusted import safe_lines, safe_text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),  # the window title
        ("\x1b]52;c;aGk=\x07", "\\x1b]52;c;aGk=\\x07"),  # the clipboard (OSC 52)
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # clear the screen, cursor home
        ("ok\rSandbox tier: none", "ok\\rSandbox tier: none"),  # a carriage return rewrites the line
        ("boom\nSandbox tier: none", "boom\\nSandbox tier: none"),  # a newline forges a line
        ("a\tb\x00c\x7fd", "a\\tb\\x00c\\x7fd"),  # tab, NUL, DEL
        ("\x9b31m\x85", "\\x9b31m\\x85"),  # C1: CSI, NEL
        ("abc\u202edef\u202c", "abc\\u202edef\\u202c"),  # bidi override and pop
        ("\u2066x\u2069\u200e\u200f\u061c", "\\u2066x\\u2069\\u200e\\u200f\\u061c"),  # isolates and marks
        ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),  # line and paragraph separators
        ("\u200b\ufeff", "\\u200b\\ufeff"),  # invisible: zero-width space, byte order mark
        ("\ud800", "\\ud800"),  # a lone surrogate (from JSON) that no terminal can print
    ],
)
def test_every_control_is_shown_not_obeyed(text: str, shown: str) -> None:
    assert safe_text(text) == shown


def test_ordinary_text_is_left_as_it_is() -> None:
    text = "RuntimeError: café, Ärger, 東京, 😀, 'quotes' and \\backslashes\\ 100% [x]"
    assert safe_text(text) == text


def test_nothing_unsafe_is_left_in_any_code_point() -> None:
    """Every code point of the unsafe categories comes out as printable ASCII escapes."""
    unsafe = [chr(code) for code in range(0x110000) if unicodedata.category(chr(code)) in ("Cc", "Cs")]
    unsafe += [chr(code) for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029)]
    for character in unsafe:
        shown = safe_text(character)
        assert shown.startswith("\\") and shown.isascii() and shown.isprintable(), repr(character)


def test_keep_newlines_keeps_only_newlines() -> None:
    assert safe_text("line 1\nline 2\r\x1b[2J", keep_newlines=True) == "line 1\nline 2\\r\\x1b[2J"


def test_lines_split_at_newlines_only() -> None:
    assert safe_lines("one\ntwo\rthree\u2028four\x0cfive") == ["one", "two\\rthree\\u2028four\\x0cfive"]


def test_anything_else_is_shown_as_str_shows_it() -> None:
    assert safe_text(None) == "None" and safe_text(12) == "12" and safe_text(["\x1b"]) == "['\\x1b']"
