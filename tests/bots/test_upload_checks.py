"""Checks at the door: every refused upload says why. Pure functions, no database."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import stat
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest

from bots.uploads import UploadLimits, UploadRejected, check_upload
from lineit.sandbox.runtime import BotStagingError, safe_extract

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


# --- Archives inside the archive --------------------------------------------------------------
# Refused, whatever their name: the limits count only what they can see, and a nested archive
# hides its expanded size (the issue: a zip bomb inside a zip, next to a valid bot.py, passed).


def _zip_bomb() -> bytes:
    # 50 MB of zeros in a zip of about 50 KB, stored (not compressed again) in the outer zip.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as inner:
        inner.writestr("zeros.bin", b"\0" * (50 * 1024 * 1024))
    return buffer.getvalue()


def stored_zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _tar(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


ROOMY = UploadLimits(max_bytes=200_000, max_files=5, max_file_bytes=200_000, max_total_bytes=500_000, max_ratio=50)


@pytest.mark.parametrize(
    ("name", "why"), [("data/weights.zip", "named as an archive (.zip)"), ("data/weights.bin", "a zip archive")]
)
def test_a_zip_bomb_inside_the_zip_next_to_a_good_bot_is_refused(name: str, why: str) -> None:
    content = stored_zip({"bot.py": GOOD_BOT, name: _zip_bomb()})
    with pytest.raises(UploadRejected) as caught:
        check_upload("b.zip", content, ROOMY)
    assert f"archive member {name!r} is {why}: a bot's zip may not hold archives" in caught.value.message


PAYLOAD = b"x = 1\n" * 200

NESTED = {
    "zip": make_zip({"inner.py": PAYLOAD}),
    "gzip": gzip.compress(PAYLOAD),
    "bzip2": bz2.compress(PAYLOAD),
    "xz": lzma.compress(PAYLOAD),
    "tar": _tar("inner.py", PAYLOAD),
    "7z": b"7z\xbc\xaf\x27\x1c" + bytes(32),
    "zstandard": b"\x28\xb5\x2f\xfd" + bytes(32),
    "rar": b"Rar!\x1a\x07\x01\x00" + bytes(32),
}


@pytest.mark.parametrize("kind", sorted(NESTED))
def test_an_archive_is_known_by_its_content_under_any_name(kind: str) -> None:
    content = stored_zip({"bot.py": GOOD_BOT, "model.dat": NESTED[kind]})
    with pytest.raises(UploadRejected) as caught:
        check_upload("b.zip", content, ROOMY)
    assert f"'model.dat' is a {kind} archive" in caught.value.message


def test_a_zip_behind_a_prefix_is_still_a_zip() -> None:
    # Self-extracting style: bytes before the archive; zip readers still open it.
    hidden = b"#!/bin/sh\necho hello\n" + make_zip({"inner.py": PAYLOAD})
    with pytest.raises(UploadRejected, match=r"'run\.sh' is a zip archive"):
        check_upload("b.zip", stored_zip({"bot.py": GOOD_BOT, "run.sh": hidden}), ROOMY)


@pytest.mark.parametrize("name", ["lib.tar.gz", "vendor/pkg.whl", "x.7z", "weights.npz", "DATA.ZIP"])
def test_an_archive_is_known_by_its_name_too(name: str) -> None:
    message = rejected("b.zip", make_zip({"bot.py": GOOD_BOT, name: b"not really an archive\n"}))
    assert f"{name!r} is named as an archive" in message


def test_plain_data_files_are_not_taken_for_archives() -> None:
    entries = {
        "bot.py": GOOD_BOT,
        "weights.json": b'{"w": [0.1, 0.2]}',
        "table.bin": bytes(range(256)) * 4,
        "notes.txt": b"BZh is how bzip2 starts; PK is how zip starts\n",
    }
    assert check_upload("b.zip", make_zip(entries), LIMITS) == "zip"


@pytest.mark.parametrize(
    ("entries", "why"),
    [
        ({"bot.py": GOOD_BOT, "./bot.py": b"import os\n"}, "unpack to the same file 'bot.py'"),
        ({"bot.py": GOOD_BOT, "pkg/a.py": b"", "pkg//a.py": b"x = 1\n"}, "unpack to the same file 'pkg/a.py'"),
        ({"bot.py": GOOD_BOT, "pkg/./a.py": b"", "pkg/a.py": b""}, "unpack to the same file 'pkg/a.py'"),
        ({"bot.py": GOOD_BOT, "lib": b"x", "lib/x.py": b""}, "'lib' a folder"),
        ({"bot.py": GOOD_BOT, "bot.py/x.py": b""}, "'bot.py' a folder"),
        ({"bot.py": GOOD_BOT, "data/": b"", "data": b"x"}, "'data' a folder"),
    ],
)
def test_two_members_that_unpack_to_one_path_are_refused_at_the_door(entries: dict[str, bytes], why: str) -> None:
    # The door took them for different files; the sandbox, unpacking, could not (File exists),
    # and which of the two bot.py the door had checked was not sure to be the one that runs.
    package = make_zip(entries)
    assert why in rejected("b.zip", package)
    with tempfile.TemporaryDirectory() as folder:
        archive = Path(folder) / "b.zip"
        archive.write_bytes(package)
        with pytest.raises(BotStagingError):
            safe_extract(archive, Path(folder))


def test_the_door_reads_member_paths_as_the_sandbox_unpacks_them(tmp_path: Path) -> None:
    package = make_zip({"./bot.py": b"from lib.helper import act\n", "lib//helper.py": GOOD_BOT})
    assert check_upload("b.zip", package, LIMITS) == "zip"
    archive = tmp_path / "b.zip"
    archive.write_bytes(package)
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    safe_extract(archive, unpacked)
    assert sorted(str(path.relative_to(unpacked)) for path in unpacked.rglob("*.py")) == ["bot.py", "lib/helper.py"]
    assert "no bot.py" in rejected("b.zip", make_zip({"./pkg/bot.py": GOOD_BOT}))


def _damaged(kind: str) -> bytes:
    data = bytearray(make_zip({"bot.py": GOOD_BOT, "helper.py": b"x = 1\n"}))
    central, end = data.find(b"PK\x01\x02"), data.rfind(b"PK\x05\x06")
    if kind == "unknown zip version":  # NotImplementedError from ZipFile() itself
        data[central + 6 : central + 8] = (66).to_bytes(2, "little")
    elif kind == "offsets before the file":  # ValueError (negative seek) on opening a member
        offset = int.from_bytes(data[end + 16 : end + 20], "little")
        data[end + 16 : end + 20] = (offset + 1000).to_bytes(4, "little")
    elif kind == "a member without a name":  # IndexError inside zipfile's is_dir
        data[central + 28 : central + 30] = (0).to_bytes(2, "little")
        data[central + 46 : central + 46 + len("bot.py")] = b""
    return bytes(data)


@pytest.mark.parametrize("kind", ["unknown zip version", "offsets before the file", "a member without a name"])
def test_a_damaged_zip_is_refused_at_the_door_and_by_the_sandbox_never_a_crash(kind: str, tmp_path: Path) -> None:
    data = _damaged(kind)
    assert rejected("bot.zip", data)  # was a 500: NotImplementedError, ValueError
    archive = tmp_path / "bot.zip"
    archive.write_bytes(data)
    (tmp_path / "out").mkdir()
    with contextlib.suppress(BotStagingError):  # refused, saying why; or unpacked, when what remains is readable
        safe_extract(archive, tmp_path / "out")
