"""A CPU of its own for each running match, unique on the host while there are enough.

A match's referee and its bots are pinned to one CPU (run_sandboxed_match). Choosing that CPU
from the process id put every worker of separate PID namespaces (containers) on the same one: each
sees itself as a low pid. Instead a match claims a CPU: it takes an exclusive ``flock`` on
``<claims>/cpu-<n>`` for the first of its allowed CPUs that no other match holds, and keeps it
until the match ends; the kernel drops the lock when the process dies, so a killed worker leaves
no claim behind. The claims folder is ``LINEIT_CPU_CLAIMS`` if set, else ``/dev/shm/lineit-cpus``
(shared by every process of the host, whatever its PID namespace; containers share it when it is a
volume mounted in each: docs/sandbox.md). When every allowed CPU is held, the match shares one, as
before (spread by process id): a claim is a placement, never a reason to wait or fail.

The folder is shared by every user's matches, so another user may have made it, or planted links
and files in it, before a root process comes (lineit/botkit/safe_paths.py): the folder is used
only when it and every folder and link on its way belong to root or to this user and it is sticky
(others cannot remove or replace our claims); otherwise this user's matches claim in a private
folder of their own (``<claims>-<uid>``), and if that is taken too, share by process id. A claim
file is opened in the open folder without following a link and without creating over another's
file, read-only (``flock`` needs no more), and must be a regular file: nothing in the folder is
ever chmod-ed, written or followed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
from pathlib import Path

from lineit.botkit.safe_paths import check_folder_status, open_folder, open_regular_file, secure_folder

SHARED_MODE = 0o1777  # every user's matches claim CPUs in the same folder; no one removes another's claim


def claims_folder() -> Path:
    chosen = os.environ.get("LINEIT_CPU_CLAIMS")
    if chosen:
        return Path(chosen)
    shared = Path("/dev/shm")
    return (shared if shared.is_dir() else Path(tempfile.gettempdir())) / "lineit-cpus"


def _open_shared(folder: Path) -> int:
    """The shared claims folder, opened; raises OSError (UnsafePath) when it cannot be trusted."""
    descriptor = open_folder(secure_folder(folder, mode=SHARED_MODE, shared=True))
    try:
        status = os.fstat(descriptor)
        check_folder_status(status, folder, shared=True)  # what was opened is what was checked
        if status.st_uid == os.geteuid() and stat.S_IMODE(status.st_mode) != SHARED_MODE:
            os.fchmod(descriptor, SHARED_MODE)  # ours: opened without following a link
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _open_private(folder: Path) -> int:
    private = folder.with_name(f"{folder.name}-{os.geteuid()}")
    descriptor = open_folder(secure_folder(private, mode=0o700))
    try:
        check_folder_status(os.fstat(descriptor), private)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _folder_descriptor() -> int | None:
    folder = claims_folder()
    for opener in (_open_shared, _open_private):
        try:
            return opener(folder)
        except OSError:
            continue
    return None


def _claim_file(name: str, folder: int) -> int:
    """The claim file, opened read-only without following a link; made (O_EXCL) when absent. An
    existing file is opened without O_CREAT: in a sticky folder, creating over another user's
    file is refused by protected_regular, and it is not needed to lock it."""
    try:
        return open_regular_file(name, dir_fd=folder)
    except FileNotFoundError:
        pass
    try:
        descriptor = open_regular_file(name, dir_fd=folder, flags=os.O_RDONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:  # made by another match just now
        return open_regular_file(name, dir_fd=folder)
    with contextlib.suppress(OSError):
        os.fchmod(descriptor, 0o644)  # made just now, ours: readable whatever the umask, so others can lock it
    return descriptor


def claim_cpu(allowed: list[int]) -> tuple[int, int | None]:
    """(the CPU to pin to, the descriptor holding its claim or None). Close the descriptor to
    release the claim (release_cpu)."""
    folder = _folder_descriptor()
    if folder is not None:
        try:
            for cpu in allowed:
                try:
                    descriptor = _claim_file(f"cpu-{cpu}", folder)
                except OSError:
                    continue
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(descriptor)
                    continue
                return cpu, descriptor
        finally:
            os.close(folder)
    return allowed[os.getpid() % len(allowed)], None


def release_cpu(descriptor: int | None) -> None:
    if descriptor is not None:
        with contextlib.suppress(OSError):
            os.close(descriptor)
