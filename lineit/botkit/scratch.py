"""Temporary folders named after the process that owns them, and the sweep of those whose process
is gone.

A process ended by SIGKILL (or by a signal nobody handles) runs no ``finally`` and no ``atexit``:
its bots' private folders and its sandbox runtime stay in the temporary directory. Each folder's
name carries its owner's process id and start time (``lineit-bot-4242-987654-xxxx``), so any later
process can tell a folder whose owner is gone, even if the id was reused since, and remove it:
the sandbox sweeps when it first starts in a process (the command line and every worker).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from lineit.botkit.safe_paths import chmod_in_place

KINDS = ("bot", "runtime", "canary")
_NAME = re.compile(r"lineit-(?:" + "|".join(KINDS) + r")-(\d+)-(\d+)-")


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, None if there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
    except OSError:
        return None
    return int(fields[19])  # field 22 of proc(5); fields[0] is field 3, the state


@functools.cache
def _owner(pid: int) -> str:
    return f"{pid}-{start_time(pid) or 0}"


def owner_tag() -> str:
    """This process's id and start time, as folder names carry them (recomputed after a fork)."""
    return _owner(os.getpid())


def prefix(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown kind of temporary folder {kind!r}")
    return f"lineit-{kind}-{owner_tag()}-"


def scratch_folder(kind: str) -> tempfile.TemporaryDirectory[str]:
    """A TemporaryDirectory owned by this process."""
    return tempfile.TemporaryDirectory(prefix=prefix(kind))


def owner_is_gone(name: str) -> bool:
    """Whether a folder name of ours names a process that no longer runs (False for other names)."""
    found = _NAME.match(name)
    if found is None:
        return False
    pid, started = int(found.group(1)), int(found.group(2))
    return start_time(pid) != started


def sweep_stale_folders(directory: str | os.PathLike[str] | None = None) -> list[Path]:
    """Remove the temporary folders of ours (this user's) whose owning process is gone; returns
    what was removed. Folders of live processes, and anything not named by this module, stay."""
    root = Path(directory if directory is not None else tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    uid = os.getuid()
    for entry in entries:
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != uid:
                continue
        except OSError:
            continue
        if owner_is_gone(entry.name):
            path = Path(entry.path)
            make_writable(path)
            shutil.rmtree(path, ignore_errors=True)
            if not path.exists():
                removed.append(path)
    return removed


def make_writable(root: Path) -> None:
    """Let the owner remove a tree made read-only (folders only: removing needs no file rights).
    A folder is chmod-ed through a descriptor opened without following links, so a link swapped
    in for it meanwhile is left alone, never the folder it points to."""
    for path in [root, *root.rglob("*")]:
        try:
            if stat.S_ISDIR(path.lstat().st_mode):
                chmod_in_place(path, 0o700)
        except OSError:
            continue
