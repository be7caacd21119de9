"""Files and folders in places other users may write: made without following links, owned and
checked.

A root ``lineit match`` or worker that follows a link another user planted (``/dev/shm/x`` ->
``/etc``), or trusts a folder another user made first, writes or chmods whatever that user chose.
So every folder the kit or the workers keep files in (CPU claims, the bot code cache, replay
folders, metrics) is reached through ``secure_folder``: each folder on the way must belong to root
or to this user and be writable by no one else unless it is sticky (``/tmp``, ``/dev/shm``: there
only an entry's owner may rename or remove it), each link on the way must belong to root or to this
user, and the folder itself must be this user's and private (or, for a folder meant to be shared
between users, root's or this user's and sticky). Once that holds, only root and this user can
change what the path names, so later uses of the path are as safe as the check.

Files inside are opened by name relative to an open folder with ``O_NOFOLLOW`` (a link at that
name is refused, never followed) and checked with ``fstat`` on what was opened; files are written
whole under a fresh name (``O_EXCL``) and renamed into place, which replaces a link or a file
planted at the name instead of writing through it. Private temporary folders (``tempfile``'s
``mkdtemp``, ``TemporaryFile``) are safe as they are: they are made with ``O_EXCL`` and mode 0700,
under a name no one can take first.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

# Folders made on the way to a secured folder; the folder itself gets the mode asked for.
PARENT_MODE = 0o755
_MAX_LINKS = 40  # as the kernel's own limit on links followed in one path (ELOOP)
_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH


class UnsafePath(PermissionError):
    """A path that another user could redirect or rewrite: refused, never followed."""


def _trusted(uid: int) -> bool:
    return uid in (0, os.geteuid())


def _owner(uid: int) -> str:
    return "root" if uid == 0 else f"uid {uid}"


def check_folder_status(status: os.stat_result, shown: str | os.PathLike[str], *, shared: bool = False) -> None:
    """Refuse (UnsafePath) a folder that is not this user's own, private one. ``shared``: a
    folder that every user writes in (CPU claims), which must then be root's or this user's and
    sticky, so that no one removes or renames another's entries."""
    if not stat.S_ISDIR(status.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(shown))
    mode = stat.S_IMODE(status.st_mode)
    if shared:
        if not _trusted(status.st_uid):
            raise UnsafePath(f"{shown} belongs to {_owner(status.st_uid)}, not to root or this user")
        if mode & _WRITABLE_BY_OTHERS and not mode & stat.S_ISVTX:
            raise UnsafePath(f"{shown} is writable by other users and not sticky (mode {mode:04o})")
        return
    if status.st_uid != os.geteuid():
        raise UnsafePath(f"{shown} belongs to {_owner(status.st_uid)}, not to this user")
    if mode & _WRITABLE_BY_OTHERS:
        raise UnsafePath(f"{shown} is writable by other users (mode {mode:04o}); chmod go-w it")


def _check_on_the_way(status: os.stat_result, shown: Path) -> None:
    """A folder above the one asked for: root's or this user's, and no one else may replace
    its entries (not writable by others, or sticky)."""
    if not stat.S_ISDIR(status.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(shown))
    mode = stat.S_IMODE(status.st_mode)
    if not _trusted(status.st_uid):
        raise UnsafePath(f"{shown} belongs to {_owner(status.st_uid)}: a folder on the way may not")
    if mode & _WRITABLE_BY_OTHERS and not mode & stat.S_ISVTX:
        raise UnsafePath(f"{shown} is writable by other users and not sticky (mode {mode:04o})")


def secure_folder(path: str | os.PathLike[str], *, mode: int = 0o700, shared: bool = False) -> Path:
    """The folder ``path`` (made, with any missing parent, when absent), once every folder and
    link on the way and the folder itself pass the checks above; raises UnsafePath (an OSError)
    otherwise. Returns the path with its links resolved."""
    remaining = list(Path(os.path.abspath(path)).parts[1:])
    current = Path("/")
    links = 0
    while remaining:
        part = remaining.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            current = current.parent
            continue
        _check_on_the_way(os.lstat(current), current)
        candidate = current / part
        status = _lstat_or_make(candidate, mode if not remaining else PARENT_MODE)
        if stat.S_ISLNK(status.st_mode):
            links += 1
            if links > _MAX_LINKS:
                raise UnsafePath(f"{path}: too many links on the way")
            if not _trusted(status.st_uid):
                raise UnsafePath(f"{candidate} is a link made by {_owner(status.st_uid)}: not followed")
            target = Path(os.readlink(candidate))
            if target.is_absolute():
                current = Path("/")
            remaining = [*target.parts[1 if target.is_absolute() else 0 :], *remaining]
            continue
        current = candidate
    check_folder_status(os.lstat(current), current, shared=shared)
    return current


def _lstat_or_make(candidate: Path, mode: int) -> os.stat_result:
    try:
        return os.lstat(candidate)
    except FileNotFoundError:
        pass
    try:
        os.mkdir(candidate, mode)
    except FileExistsError:  # made at the same moment by someone else: checked as any other
        return os.lstat(candidate)
    descriptor = open_folder(candidate)  # ours, just made: only the umask may have widened it
    try:
        os.fchmod(descriptor, mode)
        return os.fstat(descriptor)
    finally:
        os.close(descriptor)


def open_folder(path: str | os.PathLike[str], *, dir_fd: int | None = None) -> int:
    """A descriptor of the folder ``path`` itself: a link there is refused (ELOOP), not followed."""
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)


def open_regular_file(name: str, *, dir_fd: int, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """Open the regular file ``name`` in the open folder ``dir_fd`` without following a link
    (ELOOP), without waiting on a named pipe, and refuse anything but a regular file."""
    descriptor = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise UnsafePath(f"{name} is not a regular file")
    os.set_blocking(descriptor, True)
    return descriptor


def read_regular_file(path: Path, *, limit: int) -> bytes:
    """At most ``limit`` + 1 bytes of the regular file ``path`` (a link at its name is refused)."""
    folder = open_folder(path.parent)
    try:
        descriptor = open_regular_file(path.name, dir_fd=folder)
    finally:
        os.close(folder)
    with os.fdopen(descriptor, "rb") as handle:
        return handle.read(limit + 1)


def write_file(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    """``data`` as the file ``path``: written whole under a fresh name in the same folder, then
    renamed over the name, so a link or a file planted at that name is replaced, never written
    through, and a reader never sees half a file."""
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            os.fchmod(stream.fileno(), mode)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def chmod_in_place(path: str | os.PathLike[str], mode: int) -> None:
    """chmod the folder or file ``path`` itself, never what a link there points to (a link
    swapped in after a check is refused: ELOOP)."""
    descriptor = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if stat.S_ISLNK(os.fstat(descriptor).st_mode):
            raise UnsafePath(f"{path} is a link: not changed")
        # An O_PATH descriptor cannot be fchmod-ed; its /proc entry names the very inode opened.
        os.chmod(f"/proc/self/fd/{descriptor}", mode)
    finally:
        os.close(descriptor)
