"""``lineit new``: start a bot from the kit's starter files, and zip a bot folder for upload.

``lineit new NAME`` writes the folder NAME/ (bot.py, test_bot.py, README.md, from the package
data in lineit/starter/) all at once: the files are written into a hidden temporary folder
beside it, which is renamed NAME at the end, so a failure leaves nothing behind.

``lineit new --zip FOLDER`` writes FOLDER.zip beside the folder, ``bot.py`` at its root, as the
site takes it: regular files only (a link is refused), without caches or hidden files, and the
same bytes for the same files (fixed dates and modes), so an unchanged bot uploads as the same
version.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import stat
import tempfile
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

from lineit.botkit.interface import ENTRY_MODULE
from lineit.botkit.untrusted import safe_text

from .errors import CommandError, UsageError

NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
NAME_RULE = "a bot's name is 1 to 64 letters, digits, '_' or '-', starting with a letter or '_'"
STARTER_PACKAGE = "lineit.starter"
SKIPPED_NAMES = ("__pycache__",)  # besides every name starting with '.'
SKIPPED_SUFFIXES = (".pyc", ".pyo")
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: the bytes depend on the files only
SITE_UPLOAD_BYTES = 1024 * 1024  # the site's default limit (BOT_UPLOAD_MAX_BYTES)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "new",
        help="write a starter bot folder (or zip a bot folder for upload)",
        description=(
            "Write the folder NAME/ in the current folder: bot.py (a small bot to start from), test_bot.py "
            "(its tests: cd NAME && python -m pytest) and README.md (how to play, test, zip and upload it). "
            "NAME must not exist yet. With --zip, write FOLDER.zip beside an existing bot folder instead: "
            "bot.py at its root, caches and hidden files left out, links refused."
        ),
        epilog="Then: lineit match NAME/ heuristic. Documented in docs/bot-interface.md.",
    )
    parser.add_argument("name", metavar="NAME", help="the new folder's name (with --zip: the bot folder to zip)")
    parser.add_argument("--zip", action="store_true", help="zip the bot folder NAME into NAME.zip, for upload")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.zip:
        return zip_folder(args.name)
    return write_starter(args.name)


def check_name(name: str) -> None:
    if not NAME_PATTERN.fullmatch(name):
        raise UsageError(f"{safe_text(name, max_length=100)!r} cannot be a bot folder's name: {NAME_RULE}")


def starter_files(name: str) -> dict[str, str]:
    """The starter's files, by name, as they are written for the bot ``name``."""
    from lineit.starter import FILES, NAME_PLACEHOLDER

    package = resources.files(STARTER_PACKAGE)
    return {file: package.joinpath(file).read_text(encoding="utf-8").replace(NAME_PLACEHOLDER, name) for file in FILES}


def write_starter(name: str) -> int:
    check_name(name)
    target = Path(name)
    if os.path.lexists(target):
        raise UsageError(f"{name} already exists here: choose another name, or move it away first")
    files = starter_files(name)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".part", dir="."))
    except OSError as error:
        raise UsageError(f"cannot write in {Path.cwd()}: {error.strerror or error}") from None
    try:
        for file, text in files.items():
            (staging / file).write_text(text, encoding="utf-8")
        staging.chmod(0o777 & ~current_umask())  # mkdtemp's folder is private (0700)
        if os.path.lexists(target):  # made while we wrote: rename() would replace an empty folder
            raise UsageError(f"{name} already exists here: choose another name, or move it away first")
        staging.rename(target)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise CommandError(f"cannot write {name}/: {error.strerror or error}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    print(f"wrote {name}/: {', '.join(files)}")
    print(f"next: lineit match {name}/ heuristic, and cd {name} && python -m pytest (see {name}/README.md)")
    return 0


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def zip_members(folder: Path) -> list[tuple[str, Path]]:
    """(name in the zip, file) for every file to pack, sorted; refuses a link or a special file."""
    members = []
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(entry for entry in folders if not skipped(entry))
        kept = [entry for entry in files if not skipped(entry)]
        for entry in sorted(folders + kept):
            path = Path(root) / entry
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink():
                raise UsageError(f"{relative} is a link, which the site refuses: put the file itself there")
            if entry in kept:
                if not stat.S_ISREG(path.lstat().st_mode):
                    raise UsageError(f"{relative} is not a regular file (a pipe, a socket or a device)")
                members.append((relative, path))
    return sorted(members)


def skipped(entry: str) -> bool:
    return entry.startswith(".") or entry in SKIPPED_NAMES or entry.endswith(SKIPPED_SUFFIXES)


def zip_folder(given: str) -> int:
    folder = Path(given)
    shown = safe_text(given, max_length=200)
    if not folder.is_dir():
        raise UsageError(f"{shown}: no such folder (--zip takes a bot folder, with {ENTRY_MODULE} at its root)")
    if not (folder / ENTRY_MODULE).is_file():
        raise UsageError(f"{shown}: a bot folder must hold {ENTRY_MODULE} at its root")
    folder = folder.resolve()
    output = folder.with_name(folder.name + ".zip")
    if os.path.lexists(output):
        raise UsageError(f"{output.name} already exists beside the folder: move it away first")
    members = zip_members(folder)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{folder.name}.", suffix=".zip.part", dir=folder.parent)
    except OSError as error:
        raise UsageError(f"cannot write in {folder.parent}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as stream, zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, path in members:
                info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, path.read_bytes())
        os.link(temporary, output)  # never replaces: a zip made meanwhile is an error, not lost
    except FileExistsError:
        raise UsageError(f"{output.name} already exists beside the folder: move it away first") from None
    except OSError as error:
        raise CommandError(f"cannot write {output.name}: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    size = output.stat().st_size
    print(f"wrote {output}: {len(members)} files, {size} bytes, {ENTRY_MODULE} at its root")
    if size > SITE_UPLOAD_BYTES:
        print(f"note: larger than the site's default upload limit ({SITE_UPLOAD_BYTES} bytes)")
    return 0
