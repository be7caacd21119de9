"""Checks at the door: everything about an upload that can be decided without running it.

A ``.py`` file must be UTF-8 and compile (in a child process with limits: bots/source_check.py). A ``.zip`` must be a plain archive of regular files
with ``bot.py`` at its root: no absolute paths, no ``..``, no symlinks, no two members that
unpack to one path (``bot.py`` and ``./bot.py``; a file ``lib`` and ``lib/x.py``), no
encryption, not too many or too large files, no suspicious compression ratio (archive bombs),
and every member must decompress to exactly its declared size. Paths are read as the sandbox
unpacks them (``./bot.py`` is ``bot.py``). No member may itself be an archive or a compressed
stream (zip, tar, gzip, bzip2, xz, 7z, ...), known by its content or by its name: the limits above
can only count what they can see, and a nested archive hides its expanded size. The API, the pages
and every other upload path come through ``check_upload``. Nothing here imports or runs the bot.
"""

from __future__ import annotations

import io
import stat
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

from lineit.botkit.interface import ENTRY_MODULE
from lineit.sandbox.runtime import ZIP_READ_ERRORS
from lineit_platform.errors import ApplicationError

from .source_check import CPU_SECONDS, MEMORY_BYTES, compile_in_child


class UploadRejected(ApplicationError):
    code = "upload_rejected"


@dataclass(frozen=True)
class UploadLimits:
    max_bytes: int = 1024 * 1024
    max_files: int = 200
    max_file_bytes: int = 5 * 1024 * 1024
    max_total_bytes: int = 20 * 1024 * 1024
    max_ratio: int = 100


def upload_kind(filename: str) -> str:
    lowered = filename.lower()
    if lowered.endswith(".py"):
        return "py"
    if lowered.endswith(".zip"):
        return "zip"
    raise UploadRejected(f"{filename!r}: a bot is a .py file or a .zip package with {ENTRY_MODULE} at its root")


def check_upload(filename: str, content: bytes, limits: UploadLimits) -> str:
    """The kind ("py" or "zip") of an acceptable upload; raises UploadRejected saying why not."""
    kind = upload_kind(filename)
    if not content:
        raise UploadRejected("the file is empty")
    if len(content) > limits.max_bytes:
        raise UploadRejected(f"the file is {len(content)} bytes; the limit is {limits.max_bytes}")
    if kind == "py":
        check_python_source(filename, content)
    else:
        check_zip(content, limits)
    return kind


def check_python_source(filename: str, content: bytes) -> None:
    """UTF-8 that compiles, compiled by a child process within limits (bots/source_check.py):
    whatever the file, the check costs the web process a bounded amount of CPU and memory."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UploadRejected(f"{filename} is not UTF-8 text: {error}") from None
    compiled = compile_in_child(text, filename)
    if compiled.outcome == "syntax":
        raise UploadRejected(f"{filename}, line {compiled.line}: syntax error: {compiled.message}")
    if compiled.outcome == "invalid":  # null bytes
        raise UploadRejected(f"{filename}: {compiled.message}")
    if compiled.outcome == "too_deep":
        raise UploadRejected(
            f"{filename}: its expressions nest too deeply to compile (Python's own limit on recursion); "
            "split them into smaller ones"
        )
    if compiled.outcome != "ok":
        raise UploadRejected(
            f"{filename}: compiling it takes more than the {CPU_SECONDS} s of CPU and "
            f"{MEMORY_BYTES // 2**20} MiB of memory an upload may; no bot needs that much"
        )


def _check_member_name(name: str) -> None:
    if not name or "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UploadRejected(f"archive member {name!r} has an absolute or non-portable path")
    if any(part in ("..",) for part in name.split("/")):
        raise UploadRejected(f"archive member {name!r} points outside the archive ('..')")
    if "\x00" in name:
        raise UploadRejected(f"archive member {name!r} has a NUL byte in its name")


# Archive and compressed-stream formats by the bytes they start with (tar: "ustar" at 257).
ARCHIVE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
    (b"PK\x07\x08", "zip"),
    (b"\x1f\x8b", "gzip"),
    (b"\x1f\x9d", "compress"),
    (b"\x1f\xa0", "compress"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"Rar!\x1a\x07", "rar"),
    (b"\x28\xb5\x2f\xfd", "zstandard"),
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"MSCF\x00\x00\x00\x00", "cab"),
    (b"!<arch>\n", "ar"),
    (b"\xed\xab\xee\xdb", "rpm"),
)
ARCHIVE_SUFFIXES = frozenset(
    {".zip", ".tar", ".gz", ".tgz", ".bz2", ".tbz", ".tbz2", ".xz", ".txz", ".lzma", ".7z", ".rar", ".zst"}
    | {".lz4", ".z", ".cab", ".whl", ".egg", ".jar", ".npz", ".cpio", ".deb", ".rpm", ".iso", ".ar"}
)
_BZIP2_BLOCKS = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")  # a block, or the end


def archive_format(data: bytes) -> str | None:
    """The archive or compression format ``data`` is in, read from its content; None for anything else."""
    for magic, name in ARCHIVE_MAGIC:
        if data.startswith(magic):
            return name
    if data[:3] == b"BZh" and data[3:4].isdigit() and data[4:10] in _BZIP2_BLOCKS:
        return "bzip2"
    if data[257:262] == b"ustar":
        return "tar"
    if zipfile.is_zipfile(io.BytesIO(data)):  # a zip behind a prefix (self-extracting) still opens
        return "zip"
    return None


def _refuse_nested_archive(name: str, data: bytes | None = None) -> None:
    found = archive_format(data) if data is not None else None
    suffix = PurePosixPath(name).suffix.lower()
    if found is None and suffix not in ARCHIVE_SUFFIXES:
        return
    what = f"a {found} archive" if found else f"named as an archive ({suffix})"
    raise UploadRejected(
        f"archive member {name!r} is {what}: a bot's zip may not hold archives or compressed files; "
        "put their unpacked files in the zip instead"
    )


def check_zip(content: bytes, limits: UploadLimits) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except ZIP_READ_ERRORS as error:
        raise UploadRejected(f"not a readable zip archive: {error}") from None
    with archive:
        members = archive.infolist()
        if len(members) > limits.max_files:
            raise UploadRejected(f"the archive holds {len(members)} entries; the limit is {limits.max_files}")
        total = 0
        for member in members:
            _check_member(member, limits)
            total += member.file_size
            if total > limits.max_total_bytes:
                raise UploadRejected(f"the archive unpacks to more than {limits.max_total_bytes} bytes")
        files = _unpacked_files(members)
        if ENTRY_MODULE not in files:
            raise UploadRejected(f"the archive has no {ENTRY_MODULE} at its root (found: {_sample(set(files))})")
        for member in members:
            if not member.is_dir():
                data = _read_bounded(archive, member)
                _refuse_nested_archive(member.filename, data)
                if files.get(ENTRY_MODULE) is member:
                    check_python_source(ENTRY_MODULE, data)


def unpacked_path(name: str) -> str:
    """Where a member lands when unpacked: ``./bot.py``, ``a//b.py`` and ``a/./b.py`` are
    ``bot.py`` and ``a/b.py``, as the sandbox's unpacking (PurePosixPath's parts) writes them."""
    return "/".join(PurePosixPath(name).parts)


def _unpacked_files(members: list[zipfile.ZipInfo]) -> dict[str, zipfile.ZipInfo]:
    """Each file the archive unpacks to, by its unpacked path. Two members that land on one path
    (``bot.py`` and ``./bot.py``), or a path that is a file and a folder at once (``lib`` and
    ``lib/x.py``), are refused: the sandbox could not unpack the archive, and which of the two
    was checked here would not be the one that runs."""
    files: dict[str, zipfile.ZipInfo] = {}
    folders: dict[str, str] = {}
    for member in members:
        path = unpacked_path(member.filename)
        parts = path.split("/") if path else []
        for depth in range(1, len(parts) + (1 if member.is_dir() else 0)):
            folders.setdefault("/".join(parts[:depth]), member.filename)
        if not path or member.is_dir():
            continue
        if path in files:
            raise UploadRejected(
                f"archive members {files[path].filename!r} and {member.filename!r} unpack to the same file {path!r}"
            )
        files[path] = member
    for path, member in files.items():
        if path in folders:
            raise UploadRejected(
                f"archive member {member.filename!r} is a file, and {folders[path]!r} makes {path!r} a folder"
            )
    return files


def _check_member(member: zipfile.ZipInfo, limits: UploadLimits) -> None:
    _check_member_name(member.filename)
    if not member.is_dir():
        _refuse_nested_archive(member.filename)  # by name, before anything is decompressed
    kind = stat.S_IFMT(member.external_attr >> 16)  # 0: no Unix mode recorded, a plain file
    if kind == stat.S_IFLNK:
        raise UploadRejected(f"archive member {member.filename!r} is a symbolic link")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise UploadRejected(f"archive member {member.filename!r} is not a regular file")
    if member.flag_bits & 0x1:
        raise UploadRejected(f"archive member {member.filename!r} is encrypted")
    if member.file_size > limits.max_file_bytes:
        raise UploadRejected(
            f"archive member {member.filename!r} unpacks to {member.file_size} bytes; "
            f"the limit is {limits.max_file_bytes}"
        )
    if member.file_size > 1024 and member.file_size > limits.max_ratio * max(member.compress_size, 1):
        raise UploadRejected(
            f"archive member {member.filename!r} is compressed {member.file_size // max(member.compress_size, 1)}:1; "
            f"more than {limits.max_ratio}:1 looks like an archive bomb"
        )


def _read_bounded(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> bytes:
    """Decompress one member, never more than its declared size (which was checked)."""
    chunks = []
    size = 0
    try:
        with archive.open(member) as stream:
            while chunk := stream.read(65536):
                size += len(chunk)
                if size > member.file_size:
                    raise UploadRejected(f"archive member {member.filename!r} is larger than it declares")
                chunks.append(chunk)
    except ZIP_READ_ERRORS as error:
        raise UploadRejected(f"archive member {member.filename!r} cannot be read: {error}") from None
    return b"".join(chunks)


def _sample(names: set[str]) -> str:
    listed = sorted(names)[:5]
    return ", ".join(listed) + (", ..." if len(names) > 5 else "") if listed else "nothing"
