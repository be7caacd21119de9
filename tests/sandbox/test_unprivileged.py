"""The sandbox run by an unprivileged worker, as in production: a throwaway user created for
the test runs a small match in every tier it finds, with Debian's own Python."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from sandbox_helpers import HOSTILE

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from lineit.botkit.limits import Limits
    from lineit.botkit.schedule import MatchSpec
    from lineit.botkit.sources import BotSource, builtin_source
    from lineit.sandbox import detect_tier, run_sandboxed_match

    bots = Path(sys.argv[1])
    report = detect_tier()
    out = {"uid": __import__("os").getuid(), "attempts": report.attempts, "results": {}}
    limits = Limits(move_timeout_seconds=2, move_seconds=0.5)
    for tier in report.working:
        for name in ["random", "fork", "signal_parent", "write_files", "read_own_secret", "change_file_metadata",
                     "watch_files"]:
            source = builtin_source("random") if name == "random" else BotSource(name, bots / name)
            result = run_sandboxed_match(MatchSpec(2, 1), [source, builtin_source("random")], limits=limits, tier=tier)
            out["results"][f"{tier}:{name}"] = [[f.kind, f.message] for f in result.failures]
    print(json.dumps(out))
    """
)


def _can_create_users() -> str | None:
    if os.geteuid() != 0:
        return "creating a throwaway user needs root"
    for tool in ("useradd", "userdel", "runuser"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if not SYSTEM_PYTHON.exists():
        return "no /usr/bin/python3 for the unprivileged worker"
    return None


@pytest.fixture
def throwaway_user():
    reason = _can_create_users()
    if reason:
        pytest.skip(reason)
    name = f"lineit-t{os.getpid()}"
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    uid = int(subprocess.run(["id", "-u", name], check=True, capture_output=True, text=True).stdout)
    try:
        yield name
        end = time.monotonic() + 10  # processes of a killed namespace are reaped asynchronously
        while processes_of(uid) and time.monotonic() < end:
            time.sleep(0.05)
        assert processes_of(uid) == [], "the unprivileged worker left processes behind"
    finally:
        subprocess.run(["userdel", name], check=False)


def processes_of(uid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_an_unprivileged_worker_runs_bots_confined(throwaway_user: str) -> None:
    root = Path(tempfile.mkdtemp(prefix="lineit-unprivileged-"))
    try:
        root.chmod(0o755)
        deps = root / "deps"
        deps.mkdir()
        import pyseccomp

        shutil.copy(pyseccomp.__file__, deps / "pyseccomp.py")
        bots = root / "bots"
        for name in ("fork", "signal_parent", "write_files", "read_file"):
            folder = bots / (name if name != "read_file" else "read_own_secret")
            folder.mkdir(parents=True)
            code = (HOSTILE / f"{name}.py").read_text().replace("__TARGET__", "root-only.txt")
            (folder / "bot.py").write_text(code)  # a folder bot: the whole folder is bound
            (folder / "root-only.txt").write_text("root's secret")
            (folder / "root-only.txt").chmod(0o600)  # owned by root, in the bot's own folder
        owned = root / "owned-by-the-worker.txt"  # the worker's own file, outside every bot's folder
        for name in ("change_file_metadata", "watch_files"):
            folder = bots / name
            folder.mkdir(parents=True)
            target = owned if name == "change_file_metadata" else root
            (folder / "bot.py").write_text((HOSTILE / f"{name}.py").read_text().replace("__TARGET__", str(target)))
        for path in [root, *root.rglob("*")]:
            if path.name != "root-only.txt":
                path.chmod(0o755 if path.is_dir() else 0o644)
        (root / "worker.py").write_text(SCRIPT)
        owned.write_text("the worker's file")
        owned.chmod(0o640)
        os.setxattr(owned, "user.kept", b"kept")
        uid = int(subprocess.run(["id", "-u", throwaway_user], check=True, capture_output=True, text=True).stdout)
        os.chown(owned, uid, uid)
        os.utime(owned, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
        before = os.stat(owned)

        completed = subprocess.run(
            ["runuser", "-u", throwaway_user, "--", "env", "-i", "PATH=/usr/bin:/bin",
             f"PYTHONPATH={deps}:{REPO}", "SANDBOX_LANDLOCK_ACCEPT_HOST_VIEW=1",
             str(SYSTEM_PYTHON), str(root / "worker.py"), str(bots)],
            capture_output=True, text=True, timeout=120, cwd=root,
        )  # fmt: skip
        assert completed.returncode == 0, completed.stderr[-3000:]
        out = json.loads(completed.stdout)
        after = os.stat(owned)
        assert (after.st_mode, after.st_uid, after.st_mtime_ns) == (before.st_mode, uid, before.st_mtime_ns)
        assert os.listxattr(owned) == ["user.kept"] and os.getxattr(owned, "user.kept") == b"kept"
    finally:
        shutil.rmtree(root, ignore_errors=True)

    assert out["uid"] != 0
    working = [tier for tier, ok, _ in out["attempts"] if ok]
    assert working, out["attempts"]
    for tier in working:
        results = out["results"]
        assert results[f"{tier}:random"] == []
        for name in ("fork", "signal_parent", "read_own_secret"):
            [(kind, message)] = results[f"{tier}:{name}"]
            assert kind == "exception" and "PermissionError" in message, (tier, name, message)
        for name in ("change_file_metadata", "watch_files"):
            [(kind, message)] = results[f"{tier}:{name}"]
            assert kind == "exception" and "every attempt failed" in message, (tier, name, message)
        [(kind, message)] = results[f"{tier}:write_files"]
        assert kind == "exception" and ("Read-only file system" in message or "PermissionError" in message), message


def test_the_worker_python_is_not_what_the_bots_get() -> None:
    # sanity for the test above: bots run the base interpreter with -I -S, never a venv wrapper
    from lineit.sandbox.runtime import interpreter

    assert Path(sys.base_prefix).resolve() == interpreter().prefix
    assert ".venv" not in str(interpreter().executable)
