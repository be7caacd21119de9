"""What a sandbox is made of on disk: the sandbox folder of the process (world.py: the bot's
root with the interpreter and its libraries; the read-only runtime folder in it with the bot
host, bot interface, engine and built-in bots), and the bot's own private folder.

The runtime folder is a private copy, compiled once per process, so the sandbox never binds the
platform's source tree: a bot can import ``lineit.engine``,
``lineit.botkit.interface``, ``lineit.botkit.types`` and ``lineit.builtin`` (the built-in
bots, whose modules a bot may reuse) and nothing else of the platform. The engine is the
referee's own build: its compiled modules when the referee runs them, its source when it does
not. Of the installed third-party packages only ALLOWED_PACKAGES are importable, read-only, and
only when they are installed beside the kit (``pip install 'lineit-arena[bots]'``).
"""

from __future__ import annotations

import atexit
import compileall
import lzma
import os
import shutil
import stat
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lineit.botkit.scratch import make_writable, prefix, scratch_folder, sweep_stale_folders

from .world import (  # noqa: F401  (re-exported: where the rest of the kit and the tests find them)
    ALLOWED_PACKAGES,
    SANDBOX_RUNTIME,
    Interpreter,
    Package,
    allowed_packages,
    build_world,
    interpreter,
    package_folders,
)

# What reading a damaged or hostile zip raises besides BadZipFile: a bad offset (ValueError: negative
# seek), an unknown version or method (NotImplementedError), damaged deflate, bzip2 or lzma data
# (zlib.error, OSError, lzma.LZMAError), a stream cut short (EOFError), an encrypted member (RuntimeError).
ZIP_READ_ERRORS: tuple[type[Exception], ...] = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    RuntimeError,
)
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
WORLD_TIME = 946684800  # 2000-01-01 00:00 UTC: the date of every file the sandbox folder makes
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_MEMBERS = 2000


class BotStagingError(Exception):
    """The bot's files cannot be given to a sandbox (unsafe or unreadable archive)."""


_sandbox_folder: Path | None = None


def sandbox_folder() -> Path:
    """This process's sandbox folder: world/ (world.py: the bot's root, the runtime folder at
    world/lineit), empty/ (what masks a folder) and packages/ (a link to each folder of the
    allowed packages: the Landlock tier's view of them), made once, read-only, and made again
    when it is gone (a cleaner of temporary folders, this process's own clean-up of its folders:
    botkit/scratch.py) rather than starting bots in a world that no longer exists."""
    global _sandbox_folder
    if _sandbox_folder is None or not (_sandbox_folder / "world" / "lineit" / "host.py").is_file():
        _sandbox_folder = _make_sandbox_folder()
    return _sandbox_folder


def _make_sandbox_folder() -> Path:
    sweep_stale_folders()  # what processes killed without a chance to clean up left behind
    root = Path(tempfile.mkdtemp(prefix=prefix("runtime")))
    atexit.register(_remove_runtime, root, os.getpid())
    world = build_world(root, PACKAGE_ROOT / "engine")
    _build_runtime(world / "lineit")
    (root / "packages").mkdir()
    for folder in package_folders():
        (root / "packages" / folder.name).symlink_to(folder, target_is_directory=True)
    _date(world)
    _make_read_only(root)
    return root


def _date(root: Path) -> None:
    """Date every file and folder under ``root`` WORLD_TIME: a copy's time would tell when the
    worker started, the source's when the machine installed it."""
    for path in [*root.rglob("*"), root]:  # a folder after its entries: adding them dated it
        os.utime(path, (WORLD_TIME, WORLD_TIME), follow_symlinks=False)


def runtime_folder() -> Path:
    """host.py, host_confinement.py, lib/lineit/{engine,builtin,botkit/{interface,types}.py}
    (and the alias lib/lineit_platform), byte-compiled: /lineit in the sandbox."""
    return sandbox_folder() / "world" / "lineit"


def _build_runtime(root: Path) -> None:
    from lineit.engine import IMPLEMENTATION

    package = root / "lib" / "lineit"
    (package / "botkit").mkdir(parents=True)
    (package / "__init__.py").write_text(
        '"""Line-it: only the engine, the bot interface and the built-in bots exist here."""\n'
    )
    (package / "botkit" / "__init__.py").write_text('"""Only the bot interface is available to bots."""\n')
    (root / "lib" / "lineit_platform").mkdir()
    (root / "lib" / "lineit_platform" / "__init__.py").write_text(LEGACY_ENGINE_ALIAS)
    for botkit_file in ("interface.py", "types.py"):  # the bot interface, and its typed structures
        shutil.copy2(PACKAGE_ROOT / "botkit" / botkit_file, package / "botkit" / botkit_file)
    # The referee's engine as it runs here: without its compiled modules when it runs the source
    # (LINEIT_PURE_ENGINE=1, a stale build), so a bot never simulates with other code.
    skipped = ["__pycache__"] + ([] if IMPLEMENTATION == "compiled" else ["*.so", "native.json"])
    shutil.copytree(PACKAGE_ROOT / "engine", package / "engine", ignore=shutil.ignore_patterns(*skipped))
    shutil.copytree(PACKAGE_ROOT / "builtin", package / "builtin", ignore=shutil.ignore_patterns("__pycache__"))
    for host_file in ("host.py", "host_confinement.py"):
        shutil.copy2(Path(__file__).with_name(host_file), root / host_file)
    _date(root)  # before compiling: a compiled file records its source's time
    # compiled under the sandbox's paths: a compiled file names its source, and a bot may read it
    compileall.compile_dir(root / "lib", ddir=f"{SANDBOX_RUNTIME}/lib", quiet=1)
    compileall.compile_file(root / "host_confinement.py", ddir=SANDBOX_RUNTIME, quiet=1)  # imported by host.py


def _remove_runtime(root: Path, owner: int) -> None:
    """At exit, in the process that made it only: a forked child (a Celery pool process) shares it."""
    if os.getpid() == owner:
        make_writable(root)
        shutil.rmtree(root, ignore_errors=True)


def _make_read_only(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue  # a link to an allowed package's folder (rglob does not follow it): not ours
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
                unnamed = not member.filename or (not name.parts and not member.is_dir())
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
    except ZIP_READ_ERRORS as error:
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
