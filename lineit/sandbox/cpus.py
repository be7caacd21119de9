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
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from pathlib import Path


def claims_folder() -> Path:
    chosen = os.environ.get("LINEIT_CPU_CLAIMS")
    if chosen:
        return Path(chosen)
    shared = Path("/dev/shm")
    return (shared if shared.is_dir() else Path(tempfile.gettempdir())) / "lineit-cpus"


def _folder() -> Path | None:
    folder = claims_folder()
    try:
        folder.mkdir(mode=0o1777, exist_ok=True)
        if folder.stat().st_uid == os.getuid():
            os.chmod(folder, 0o1777)  # every user's matches claim CPUs in the same folder
    except OSError:
        return None
    return folder


def claim_cpu(allowed: list[int]) -> tuple[int, int | None]:
    """(the CPU to pin to, the descriptor holding its claim or None). Close the descriptor to
    release the claim (release_cpu)."""
    folder = _folder()
    if folder is not None:
        for cpu in allowed:
            try:
                descriptor = os.open(folder / f"cpu-{cpu}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            except OSError:
                continue
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(descriptor)
                continue
            with contextlib.suppress(OSError):
                os.fchmod(descriptor, 0o666)
            return cpu, descriptor
    return allowed[os.getpid() % len(allowed)], None


def release_cpu(descriptor: int | None) -> None:
    if descriptor is not None:
        with contextlib.suppress(OSError):
            os.close(descriptor)
