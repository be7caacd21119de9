"""Starting one bot host in a tier: the command line, the file descriptors, the configuration.

Two tiers, both with the same seccomp filter and rlimits:

* ``bubblewrap``: new user, pid, net, ipc, uts and cgroup namespaces, no capabilities, an empty
  read-only root holding /usr, the interpreter, the runtime folder at /lineit, the allowed
  third-party packages at /packages and the bot's own folder at /bot, a read-only /dev, no
  /proc, /tmp, /etc or /home. bwrap dies with its parent and
  takes the pid namespace (everything the bot started) with it.
* ``landlock``: for machines where user namespaces are blocked. The host confines itself before
  it reports "confined": parent-death signal, capabilities dropped, no_new_privs, a Landlock
  ruleset that allows reading only the interpreter, /usr, the runtime folder, the allowed
  packages' folders and the bot's folder (no writes anywhere; from ABI 6 no signals or abstract sockets outside), then seccomp.
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
from .runtime import StagedBot, interpreter, package_folders, runtime_folder
from .seccomp_filter import program

BUBBLEWRAP = "bubblewrap"
LANDLOCK = "landlock"
TIERS = (BUBBLEWRAP, LANDLOCK)

SANDBOX_RUNTIME = "/lineit"
SANDBOX_BOT = "/bot"
SANDBOX_PACKAGES = "/packages"
STDERR_CAP_BYTES = 1 << 20
OPEN_FILES = 64
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
    cpu = max(1, int(cpu_seconds + 0.999))
    memory = memory_mb * 1024 * 1024
    return {
        "as": (memory, memory),
        "cpu": (cpu, cpu + 1),  # SIGXCPU at the soft limit (cpu_limit), SIGKILL one second later
        "fsize": (STDERR_CAP_BYTES, STDERR_CAP_BYTES),
        "nofile": (OPEN_FILES, OPEN_FILES),
        "core": (0, 0),
        "memlock": (0, 0),
        "msgqueue": (0, 0),
    }


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("lib", "lib64", "bin", "sbin", "lib32"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    return args


def bubblewrap_command(staged: StagedBot, seccomp_fd: int, info_fd: int, host_fds: tuple[int, int]) -> list[str]:
    python = interpreter()
    runtime = runtime_folder()
    bwrap = bwrap_path()
    if bwrap is None:
        raise FileNotFoundError("bwrap is not installed (Debian package bubblewrap)")
    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"]
    args += ["--cap-drop", "ALL", "--clearenv"]
    for key, value in BOT_ENVIRONMENT.items():
        args += ["--setenv", key, value]
    args += _system_binds()
    if not python.prefix.is_relative_to("/usr"):
        args += ["--ro-bind", str(python.prefix), str(python.prefix)]
    for hidden in python.hidden:
        args += ["--ro-bind", str(runtime / "empty"), str(hidden)]
    args += ["--ro-bind", str(runtime), SANDBOX_RUNTIME, "--ro-bind", str(staged.folder), SANDBOX_BOT]
    for folder in package_folders():
        args += ["--ro-bind", str(folder), f"{SANDBOX_PACKAGES}/{folder.name}"]
    args += ["--dev", "/dev", "--remount-ro", "/dev", "--chdir", SANDBOX_BOT]
    args += ["--seccomp", str(seccomp_fd), "--info-fd", str(info_fd), "--remount-ro", "/", "--"]
    args += [str(python.executable), "-I", "-S", f"{SANDBOX_RUNTIME}/host.py", *map(str, host_fds)]
    return args


def sandbox_paths(tier: str, staged: StagedBot) -> tuple[str, str, str, str]:
    """(lib folder, packages folder, bot folder, bot entry) as the host sees them."""
    if tier == BUBBLEWRAP:
        relative = staged.entry.relative_to(staged.folder)
        entry = SANDBOX_BOT if relative == Path(".") else f"{SANDBOX_BOT}/{relative}"
        return f"{SANDBOX_RUNTIME}/lib", SANDBOX_PACKAGES, SANDBOX_BOT, entry
    runtime = runtime_folder()
    return str(runtime / "lib"), str(runtime / "packages"), str(staged.folder), str(staged.entry)


def host_config(
    tier: str, staged: StagedBot, memory_mb: int, cpu_seconds: float, *, canary_secret: str = ""
) -> dict[str, Any]:
    lib, packages, folder, entry = sandbox_paths(tier, staged)
    python = interpreter()
    read_paths = [str(python.prefix), "/usr", str(runtime_folder()), str(staged.folder)]
    read_paths += [str(path) for path in package_folders()]
    read_paths += [str(Path("/") / name) for name in ("lib", "lib64") if (Path("/") / name).is_dir()]
    return {
        "tier": tier,
        "parent": os.getpid(),
        "lib": lib,
        "packages": packages if package_folders() else "",
        "bot_folder": folder,
        "bot_entry": entry,
        "rlimits": rlimits(memory_mb, cpu_seconds),
        # bwrap already applied the main filter; the host adds the no-exec part itself
        "seccomp": program(complete=True),
        "read_paths": read_paths,
        "canary": bool(canary_secret),
        "secret": canary_secret,
    }


def launch(tier: str, staged: StagedBot, stderr: IO[bytes], config: dict[str, Any]) -> Launched:
    """Start the host; the caller owns every returned descriptor. Raises OSError on failure."""
    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    close_in_parent = [request_read, reply_write]
    info_read: int | None = None
    try:
        host_fds = (request_read, reply_write)
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
            command = [str(python.executable), "-I", "-S", str(runtime_folder() / "host.py"), *map(str, host_fds)]
            pass_fds = host_fds
            env, cwd = dict(BOT_ENVIRONMENT), str(staged.folder)
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
    # The configuration is small (< 64 KiB): it fits the pipe buffer and never blocks.
    payload = marshal.dumps(config)
    os.write(request_write, REQUEST_HEAD.pack(SEQUENCE + len(payload), 0) + payload)  # request 0
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
