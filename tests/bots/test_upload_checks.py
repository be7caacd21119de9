"""Checks at the door: every refused upload says why. Pure functions, no database."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from bots.uploads import UploadLimits, UploadRejected, check_upload

GOOD_BOT = b"def act(observation):\n    return observation['legal_actions'][0]\n"
LIMITS = UploadLimits(max_bytes=64 * 1024, max_files=5, max_file_bytes=20_000, max_total_bytes=50_000, max_ratio=50)


def make_zip(entries: dict[str, bytes], *, modes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if modes and name in modes:
                info.external_attr = modes[name] << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def rejected(filename: str, content: bytes) -> str:
    with pytest.raises(UploadRejected) as caught:
        check_upload(filename, content, LIMITS)
    return caught.value.message


def test_a_python_file_and_a_zip_package_pass() -> None:
    assert check_upload("mybot.py", GOOD_BOT, LIMITS) == "py"
    package = make_zip({"bot.py": b"from helper import act\n", "helper.py": GOOD_BOT})
    assert check_upload("mybot.zip", package, LIMITS) == "zip"


def test_other_file_types_are_refused() -> None:
    assert ".py file or a .zip" in rejected("bot.exe", b"MZ")


def test_empty_and_oversized_files_are_refused() -> None:
    assert "empty" in rejected("bot.py", b"")
    assert "limit is 65536" in rejected("bot.py", b"#" * (64 * 1024 + 1))


def test_a_syntax_error_names_the_line() -> None:
    assert "line 2: syntax error" in rejected("bot.py", b"def act(o):\n  return (\n")


def test_non_utf8_source_is_refused() -> None:
    assert "not UTF-8" in rejected("bot.py", b"\xff\xfe\x00bad")


def test_zip_without_bot_py_at_the_root_is_refused() -> None:
    message = rejected("b.zip", make_zip({"pkg/bot.py": GOOD_BOT}))
    assert "no bot.py at its root" in message
    assert "pkg/bot.py" in message


@pytest.mark.parametrize("name", ["../evil.py", "pkg/../../evil.py", "/etc/evil.py", "C:/evil.py", "a\\b.py"])
def test_path_traversal_and_absolute_paths_are_refused(name: str) -> None:
    message = rejected("b.zip", make_zip({"bot.py": GOOD_BOT, name: b"x = 1\n"}))
    assert repr(name) in message


def test_symlinks_are_refused() -> None:
    content = make_zip({"bot.py": GOOD_BOT, "link": b"/etc/passwd"}, modes={"link": stat.S_IFLNK | 0o777})
    assert "symbolic link" in rejected("b.zip", content)


def test_too_many_files_are_refused() -> None:
    entries = {"bot.py": GOOD_BOT} | {f"m{i}.py": b"x = 1\n" for i in range(5)}
    assert "6 entries; the limit is 5" in rejected("b.zip", make_zip(entries))


def test_a_too_large_member_is_refused() -> None:
    assert "unpacks to 20001 bytes" in rejected("b.zip", make_zip({"bot.py": GOOD_BOT, "data.txt": b"a" * 20_001}))


def test_an_archive_bomb_is_refused_by_its_ratio() -> None:
    assert "archive bomb" in rejected("b.zip", make_zip({"bot.py": GOOD_BOT, "zeros": b"\0" * 19_000}))


def test_too_much_in_total_is_refused() -> None:
    entries = {"bot.py": GOOD_BOT} | {f"d{i}.bin": bytes(range(256)) * 70 for i in range(3)}
    assert "more than 50000 bytes" in rejected("b.zip", make_zip(entries))


def test_a_member_lying_about_its_size_is_refused() -> None:
    content = bytearray(make_zip({"bot.py": GOOD_BOT}))
    # Corrupt the stored data so it no longer matches its CRC and declared size.
    offset = content.find(b"bot.py") + len(b"bot.py")
    content[offset : offset + 4] = b"\x00\x00\x00\x00"
    assert "bot.py" in rejected("b.zip", bytes(content))


def test_a_bot_py_with_a_syntax_error_inside_the_zip_is_refused() -> None:
    assert "syntax error" in rejected("b.zip", make_zip({"bot.py": b"def act(:\n"}))


def test_garbage_is_not_a_zip() -> None:
    assert "not a readable zip" in rejected("b.zip", b"PK\x03\x04 not really")
