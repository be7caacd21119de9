"""What a sandbox is made of on disk: the interpreter, the read-only runtime folder (bot host,
bot interface, engine) and the bot's own private folder.

The runtime folder is a private copy, compiled once per process, so the sandbox never binds the
platform's source tree: a bot can import ``lineit.engine`` and
``lineit.botkit.interface`` and nothing else of the platform.
"""

from __future__ import annotations

import atexit
import compileall
import functools
import os
import shutil
import stat
import sys
import sysconfig
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lineit.botkit.scratch import make_writable, prefix, scratch_folder, sweep_stale_folders

PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # lineit/
# Bots written before the kit was its own package import ``lineit_platform.engine``: in the
# sandbox that name is an alias of ``lineit.engine`` (the same module objects), so they still run.
LEGACY_ENGINE_ALIAS = '''"""The engine's old name, kept for bots written before the kit: an alias of lineit.engine."""

import sys

import lineit.engine

for _name, _module in list(sys.modules.items()):
    if _name == "lineit.engine" or _name.startswith("lineit.engine."):
        sys.modules["lineit_platform" + _name[len("lineit") :]] = _module
'''
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_MEMBERS = 2000


class BotStagingError(Exception):
    """The bot's files cannot be given to a sandbox (unsafe or unreadable archive)."""


@dataclass(frozen=True)
class Interpreter:
    executable: Path
    prefix: Path  # everything the interpreter needs: bound read-only
    hidden: tuple[Path, ...]  # package folders inside the bound trees, masked by an empty folder


@functools.cache
def interpreter() -> Interpreter:
    """The base interpreter of the running Python (not a venv's wrapper, which would expose
    site-packages); the bot host runs it with -I -S."""
    executable = Path(sys.executable).resolve()
    prefix = Path(sys.base_prefix).resolve()
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidates = {
        Path(sysconfig.get_paths(vars={"base": str(prefix), "platbase": str(prefix)})["purelib"]),
        prefix / "lib" / version / "site-packages",
        Path("/usr/lib/python3/dist-packages"),
        Path(f"/usr/local/lib/{version}/dist-packages"),
        Path(f"/usr/lib/{version}/dist-packages"),
    }
    hidden = tuple(sorted(path for path in candidates if path.is_dir()))
    return Interpreter(executable=executable, prefix=prefix, hidden=hidden)


@functools.cache
def runtime_folder() -> Path:
    """host.py, host_confinement.py and lib/lineit/{engine,botkit/interface.py} (and the alias
    lib/lineit_platform), byte-compiled, read-only."""
    sweep_stale_folders()  # what processes killed without a chance to clean up left behind
    root = Path(tempfile.mkdtemp(prefix=prefix("runtime")))
    atexit.register(_remove_runtime, root, os.getpid())
    package = root / "lib" / "lineit"
    (package / "botkit").mkdir(parents=True)
    (package / "__init__.py").write_text('"""Line-it: only the engine and the bot interface exist here."""\n')
    (package / "botkit" / "__init__.py").write_text('"""Only the bot interface is available to bots."""\n')
    (root / "lib" / "lineit_platform").mkdir()
    (root / "lib" / "lineit_platform" / "__init__.py").write_text(LEGACY_ENGINE_ALIAS)
    shutil.copy2(PACKAGE_ROOT / "botkit" / "interface.py", package / "botkit" / "interface.py")
    shutil.copytree(PACKAGE_ROOT / "engine", package / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    for host_file in ("host.py", "host_confinement.py"):
        shutil.copy2(Path(__file__).with_name(host_file), root / host_file)
    (root / "empty").mkdir()
    compileall.compile_dir(root / "lib", quiet=1)
    compileall.compile_file(root / "host_confinement.py", quiet=1)  # imported by host.py
    _make_read_only(root)
    return root


def _remove_runtime(root: Path, owner: int) -> None:
    """At exit, in the process that made it only: a forked child (a Celery pool process) shares it."""
    if os.getpid() == owner:
        make_writable(root)
        shutil.rmtree(root, ignore_errors=True)


def _make_read_only(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


@dataclass
class StagedBot:
    """The bot's files as the sandbox will see them: ``folder`` is bound read-only and
    ``entry`` (inside it) is what the host loads."""

    folder: Path
    entry: Path
    scratch: tempfile.TemporaryDirectory[str] | None = None

    def cleanup(self) -> None:
        if self.scratch is not None:
            make_writable(Path(self.scratch.name))
            self.scratch.cleanup()
            self.scratch = None


def stage_bot(path: Path) -> StagedBot:
    """A private folder holding only this bot's files: a copy of a single file, a safely
    unpacked zip, or the bot's own folder as it is."""
    path = path.resolve()
    if path.is_dir():
        if not (path / "bot.py").is_file():
            raise BotStagingError(f"{path.name}: a bot folder must hold bot.py")
        return StagedBot(folder=path, entry=path)
    if not path.exists():
        raise BotStagingError(f"{path.name}: no such file")
    if not path.is_file():  # a device (a link to /dev/zero would be copied until the disk is full), a pipe
        raise BotStagingError(f"{path.name}: a bot is a regular file, a zip or a folder, not a device or a pipe")
    scratch = scratch_folder("bot")
    folder = Path(scratch.name) / "bot"
    folder.mkdir()
    try:
        if path.suffix == ".zip":
            safe_extract(path, folder)
            entry = folder
        else:
            entry = folder / path.name
            _copy_at_most(path, entry, MAX_UNPACKED_BYTES)
        _make_read_only(folder)
    except BaseException:
        make_writable(Path(scratch.name))
        scratch.cleanup()
        raise
    return StagedBot(folder=folder, entry=entry, scratch=scratch)


def _copy_at_most(source: Path, destination: Path, limit: int) -> None:
    """Copy a single-file bot, refusing one larger than ``limit`` (the most a zip may unpack to),
    however much it grows while it is copied."""
    with source.open("rb") as reader, destination.open("xb") as writer:
        copied = 0
        while chunk := reader.read(1 << 20):
            copied += len(chunk)
            if copied > limit:
                raise BotStagingError(f"{source.name}: larger than {limit} bytes")
            writer.write(chunk)


def safe_extract(archive_path: Path, target: Path) -> None:
    """Unpack regular files and folders only; refuse absolute paths, '..', links, devices, an entry
    given twice (a file and a folder of one name too) and archives that unpack to more than
    MAX_UNPACKED_BYTES or MAX_MEMBERS entries. A refusal names the entry, never the folder it
    was unpacked into (a path of the worker's)."""
    archive_name = archive_path.name
    try:
        with zipfile.ZipFile(archive_path) as archive:
            members = archive.infolist()
            if len(members) > MAX_MEMBERS:
                raise BotStagingError(f"{archive_name}: more than {MAX_MEMBERS} entries")
            total = 0
            files: set[tuple[str, ...]] = set()
            folders: set[tuple[str, ...]] = set()
            for member in members:
                name = PurePosixPath(member.filename)
                unnamed = not name.parts and not member.is_dir()
                if (
                    unnamed
                    or name.is_absolute()
                    or ".." in name.parts
                    or "\\" in member.filename
                    or ":" in member.filename
                ):
                    raise BotStagingError(f"{archive_name}: unsafe path {_shown(member.filename)}")
                kind = stat.S_IFMT(member.external_attr >> 16)
                if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                    raise BotStagingError(f"{archive_name}: {_shown(member.filename)} is not a plain file")
                total += member.file_size
                if total > MAX_UNPACKED_BYTES:
                    raise BotStagingError(f"{archive_name}: unpacks to more than {MAX_UNPACKED_BYTES} bytes")
                _claim(name.parts, member.is_dir(), files, folders, f"{archive_name}: {_shown(member.filename)}")
            for member in members:
                _unpack(archive, member, target, archive_name)
    except (zipfile.BadZipFile, OSError, RuntimeError) as error:
        raise BotStagingError(f"{archive_name} is not a readable zip: {error}") from None


def _claim(
    parts: tuple[str, ...], folder: bool, files: set[tuple[str, ...]], folders: set[tuple[str, ...]], what: str
) -> None:
    """Record an entry's path; refuse a file given twice, or a path both a file and a folder."""
    above = {parts[:end] for end in range(1, len(parts))}
    if above & files or parts in files or (not folder and parts in folders):
        raise BotStagingError(f"{what} is given twice, or both as a file and as a folder")
    folders.update(above)
    (folders if folder else files).add(parts)


def _unpack(archive: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path, archive_name: str) -> None:
    destination = target.joinpath(*PurePosixPath(member.filename).parts)
    try:
        if member.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
            return
        destination.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(member) as source, destination.open("xb") as sink:
            shutil.copyfileobj(source, sink)
    except OSError as error:  # a name too long for the file system, most often
        reason = error.strerror or type(error).__name__
        raise BotStagingError(f"{archive_name}: cannot unpack {_shown(member.filename)}: {reason}") from None


def _shown(name: str, limit: int = 80) -> str:
    """An entry's name for a message: quoted, and cut short (a name may be thousands of characters)."""
    return repr(name) if len(name) <= limit else f"{name[:limit]!r}... ({len(name)} characters)"
