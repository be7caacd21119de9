"""Starting one bot host in a tier: the command line, the file descriptors, the configuration.

Two tiers, both with the same seccomp filter and rlimits:

* ``bubblewrap``: new user, pid, net, ipc, uts and cgroup namespaces, no capabilities, the world
  of world.py as a read-only root (the interpreter and its libraries, the standard library, the
  runtime folder at /lineit, the allowed third-party packages at /packages and the bot's own
  folder at /bot; no /proc, /dev, /tmp, /etc or /home), the bot's user and group "nobody"
  (65534) whoever runs the worker. bwrap dies with its parent and takes the pid namespace
  (everything the bot started) with it.
* ``landlock``: for machines where user namespaces are blocked. The host confines itself before
  it reports "confined": parent-death signal, capabilities dropped, no_new_privs, a Landlock
  ruleset that allows reading only the files of the world, on the machine's own paths (no writes
  anywhere; from ABI 6 no signals or abstract sockets outside), then seccomp. A bot there sees
  the machine's paths and can stat any of them: tiers.py runs bots there only when
  SANDBOX_LANDLOCK_ACCEPT_HOST_VIEW says so.

The host finds its two pipes at the numbers LINEIT_HOST_PIPES names (it moves them to 3 and 4 and
removes the variable), so its command line is the same in every tier and every run.
"""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .protocol import REQUEST_HEAD, SEQUENCE
from .runtime import PACKAGE_ROOT, StagedBot, interpreter, package_folders, runtime_folder, sandbox_folder
from .seccomp_filter import program
from .world import (
    SANDBOX_BOT,
    SANDBOX_PACKAGES,
    SANDBOX_PYTHON,
    SANDBOX_RUNTIME,
    bubblewrap_binds,
    landlock_read_paths,
)

BUBBLEWRAP = "bubblewrap"
LANDLOCK = "landlock"
TIERS = (BUBBLEWRAP, LANDLOCK)

STDERR_CAP_BYTES = 1 << 20
OPEN_FILES = 64
NOBODY = "65534"  # the bot's user and group in the bubblewrap tier, whoever runs the worker
HOSTNAME = "sandbox"  # the machine's name as a bubblewrap host sees it
PIPES_VARIABLE = "LINEIT_HOST_PIPES"  # "READ WRITE": read and removed by the host at once
# One thread of numerical work: a bot is frozen off its turn and its match pinned to one CPU,
# and every thread of OpenBLAS would reserve memory under the bot's limit for nothing.
THREADS = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
BOT_ENVIRONMENT = {"MALLOC_ARENA_MAX": "2", **THREADS}


@dataclass
class Launched:
    process: subprocess.Popen[bytes]
    to_host: int  # parent writes requests here
    from_host: int  # parent reads replies here
    info: int | None  # bubblewrap's --info-fd (its child's pid), read once


def bwrap_path() -> str | None:
    return shutil.which("bwrap") or (None if not Path("/usr/bin/bwrap").exists() else "/usr/bin/bwrap")


def rlimits(memory_mb: int, cpu_seconds: float) -> dict[str, tuple[int, int]]:
    """Every limit, set by the host on itself: the ones that confine the bot, and the others at
    fixed values, so that none is the worker's own (the default process and pending-signal limits
    are computed from the machine's memory)."""
    cpu = max(1, int(cpu_seconds + 0.999))
    memory = memory_mb * 1024 * 1024
    return {
        "as": (memory, memory),
        "data": (memory, memory),
        "rss": (memory, memory),
        "cpu": (cpu, cpu + 1),  # SIGXCPU at the soft limit (cpu_limit), SIGKILL one second later
        "fsize": (STDERR_CAP_BYTES, STDERR_CAP_BYTES),
        "nofile": (OPEN_FILES, OPEN_FILES),
        "core": (0, 0),
        "memlock": (0, 0),
        "msgqueue": (0, 0),
        "locks": (0, 0),
        "nice": (0, 0),
        "rtprio": (0, 0),
        "rttime": (0, 0),
        "stack": (STACK_BYTES, STACK_BYTES),
        "nproc": (PROCESSES, PROCESSES),
        "sigpending": (PENDING_SIGNALS, PENDING_SIGNALS),
    }


STACK_BYTES = 8 << 20  # the usual default, fixed
PROCESSES = 4096  # threads count; in the bubblewrap tier, those of the bot's own user namespace
PENDING_SIGNALS = 1024


def bubblewrap_command(staged: StagedBot, seccomp_fd: int, info_fd: int, host_fds: tuple[int, int]) -> list[str]:
    bwrap = bwrap_path()
    if bwrap is None:
        raise FileNotFoundError("bwrap is not installed (Debian package bubblewrap)")
    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"]
    args += ["--cap-drop", "ALL", "--clearenv", "--uid", NOBODY, "--gid", NOBODY, "--hostname", HOSTNAME]
    for key, value in {**BOT_ENVIRONMENT, PIPES_VARIABLE: " ".join(map(str, host_fds))}.items():
        args += ["--setenv", key, value]
    folder = sandbox_folder()
    args += bubblewrap_binds(folder / "world", folder / "empty", staged.folder)
    args += ["--chdir", SANDBOX_BOT]
    args += ["--seccomp", str(seccomp_fd), "--info-fd", str(info_fd), "--remount-ro", "/", "--"]
    args += [SANDBOX_PYTHON, "-I", "-S", f"{SANDBOX_RUNTIME}/host.py"]
    return args


def sandbox_paths(tier: str, staged: StagedBot) -> tuple[str, str, str, str]:
    """(lib folder, packages folder, bot folder, bot entry) as the host sees them."""
    if tier == BUBBLEWRAP:
        relative = staged.entry.relative_to(staged.folder)
        entry = SANDBOX_BOT if relative == Path(".") else f"{SANDBOX_BOT}/{relative}"
        return f"{SANDBOX_RUNTIME}/lib", SANDBOX_PACKAGES, SANDBOX_BOT, entry
    runtime = runtime_folder()
    return str(runtime / "lib"), str(sandbox_folder() / "packages"), str(staged.folder), str(staged.entry)


def host_config(
    tier: str, staged: StagedBot, memory_mb: int, cpu_seconds: float, *, canary_secret: str = ""
) -> dict[str, Any]:
    lib, packages, folder, entry = sandbox_paths(tier, staged)
    config: dict[str, Any] = {
        "tier": tier,
        "lib": lib,
        "packages": packages if package_folders() else "",
        "bot_folder": folder,
        "bot_entry": entry,
        "rlimits": rlimits(memory_mb, cpu_seconds),
        # bwrap already applied the main filter; the host adds the no-exec part itself
        "seccomp": program(complete=True),
        "canary": bool(canary_secret),
        "secret": canary_secret,
    }
    if tier != BUBBLEWRAP:  # nothing of the machine (its paths, a process id) enters a bubblewrap host
        config["parent"] = os.getpid()
        runtime = [runtime_folder(), sandbox_folder() / "packages"]
        config["read_paths"] = landlock_read_paths(runtime, PACKAGE_ROOT / "engine", staged.folder)
    return config


def launch(tier: str, staged: StagedBot, stderr: IO[bytes], config: dict[str, Any]) -> Launched:
    """Start the host; the caller owns every returned descriptor. Raises OSError on failure."""
    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    close_in_parent = [request_read, reply_write]
    info_read: int | None = None
    try:
        host_fds = (request_read, reply_write)
        # The configuration is small (< 64 KiB): it fits the pipe buffer and never blocks.
        payload = marshal.dumps(config)
        os.write(request_write, REQUEST_HEAD.pack(SEQUENCE + len(payload), 0) + payload)  # request 0
        if tier == BUBBLEWRAP:
            seccomp_read, seccomp_write = os.pipe()
            info_read, info_write = os.pipe()
            close_in_parent += [seccomp_read, info_write]
            os.write(seccomp_write, program(complete=False))  # small: fits the pipe buffer
            os.close(seccomp_write)
            command = bubblewrap_command(staged, seccomp_read, info_write, host_fds)
            pass_fds: tuple[int, ...] = (request_read, reply_write, seccomp_read, info_write)
            env, cwd = {}, None
        else:
            python = interpreter()
            command = [str(python.executable), "-I", "-S", str(runtime_folder() / "host.py")]
            pass_fds = host_fds
            env, cwd = {**BOT_ENVIRONMENT, PIPES_VARIABLE: " ".join(map(str, host_fds))}, str(staged.folder)
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=stderr,
            stderr=stderr,
            pass_fds=pass_fds,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    except BaseException:
        for fd in (request_write, reply_read, info_read):
            if fd is not None:
                os.close(fd)
        raise
    finally:
        for fd in close_in_parent:
            os.close(fd)
    os.set_blocking(request_write, False)
    return Launched(process=process, to_host=request_write, from_host=reply_read, info=info_read)


def stderr_file() -> IO[bytes]:
    return tempfile.TemporaryFile(prefix="lineit-bot-stderr-")


def read_tail(handle: IO[bytes] | None, size: int = 4000) -> str:
    if handle is None:
        return ""
    try:
        end = os.fstat(handle.fileno()).st_size
        data = os.pread(handle.fileno(), size, max(0, end - size))
    except (OSError, ValueError):
        return ""
    return data.decode("utf-8", "replace")
