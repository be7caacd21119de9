"""safe_text: a bot's text shown to a person obeys nothing and hides nothing."""

from __future__ import annotations

import unicodedata

import pytest

from lineit.botkit.untrusted import safe_lines, safe_text


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


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("pass\xadword", "pass\\xadword"),  # a soft hyphen: invisible in a terminal
        ("ok\U000e0049\U000e0047\U000e004e", "ok\\U000e0049\\U000e0047\\U000e004e"),  # tag characters
        ("a\u206ab\u206fc", "a\\u206ab\\u206fc"),  # deprecated format controls
        ("\u0600123", "\\u0600123"),  # an Arabic number sign, drawn over the digits after it
        ("x\u180ey", "x\\u180ey"),  # the Mongolian vowel separator, invisible
        ("a\xa0\u3000b", "a\\xa0\\u3000b"),  # spaces that are not a space
        ("\ue000\U000f0000", "\\ue000\\U000f0000"),  # private use: a font's own glyphs
        ("\u0378", "\\u0378"),  # unassigned: no terminal agrees on its width
    ],
)
def test_every_invisible_or_format_character_is_shown(text: str, shown: str) -> None:
    assert safe_text(text) == shown


def test_every_code_point_python_would_not_print_is_escaped() -> None:
    """The rule is Python's own repr(): what ``str.isprintable`` refuses (controls, format
    characters, surrogates, private use, unassigned, separators but the space) is escaped."""
    unprintable = "".join(chr(code) for code in range(0x110000) if not chr(code).isprintable())

    shown = safe_text(unprintable)

    assert shown.isascii() and shown.isprintable()
    assert shown.count("\\") == len(unprintable)


def test_combining_marks_stay_on_their_own_letters() -> None:
    """Accents are kept (NFD café, Vietnamese ệ with two marks); a mark with no letter of its own
    before it (it would sit on the report's text) and a stack past four marks are shown."""
    assert safe_text("cafe\u0301 e\u0323\u0302") == "cafe\u0301 e\u0323\u0302"
    assert safe_text("\u0336struck") == "\\u0336struck"
    assert safe_text("\x1b\u0301") == "\\x1b\\u0301"
    assert safe_text("Z" + "\u0310" * 6) == "Z" + "\u0310" * 4 + "\\u0310" * 2
    assert safe_text("one\n\u0301two", keep_newlines=True) == "one\n\\u0301two"


def test_a_long_text_is_cut_where_asked_and_says_how_much_is_left() -> None:
    assert safe_text("x" * 100 + "\x1b", max_length=10) == "x" * 10 + "… (91 more characters)"
    assert safe_text("\x1b" * 3, max_length=10) == "\\x1b" * 3
