"""The worker container's seccomp profile (deploy/seccomp-worker.json) loaded for real: pyseccomp
compiles it as Docker would and loads it into a child process, and under it the sandbox's tier
check passes in the bubblewrap tier and a match of sandboxed bots plays to the end, while a call
outside the profile is refused with EPERM. The AppArmor profile (deploy/apparmor-worker) is
compiled by apparmor_parser where it is installed (the kernel here has no AppArmor to load it
into) and read for the rules the tier needs otherwise."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SECCOMP = ROOT / "deploy" / "seccomp-worker.json"
APPARMOR = ROOT / "deploy" / "apparmor-worker"
LINEIT = Path(sys.executable).with_name("lineit")

# Never in the profile: a bot that escaped its own filter must still not reach these.
REFUSED = {
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "keyctl", "add_key", "request_key", "setns", "chroot", "mknod",
    "mknodat", "open_by_handle_at", "kexec_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff", "acct", "quotactl", "syslog", "settimeofday", "clock_settime", "adjtimex",
    "personality", "iopl", "ioperm", "mount_setattr", "fsopen", "fsmount", "move_mount", "open_tree",
}  # fmt: skip

# In a child: load the profile as Docker does (its default action for everything not listed,
# each listed name allowed, socket by family), then run what argv says and report as JSON.
UNDER_PROFILE = r"""
import ctypes, errno, json, os, subprocess, sys
import pyseccomp as seccomp

profile = json.load(open(sys.argv[1]))
assert profile["defaultAction"] == "SCMP_ACT_ERRNO"
syscall_filter = seccomp.SyscallFilter(seccomp.ERRNO(profile["defaultErrnoRet"]))
unknown = []
for entry in profile["syscalls"]:
    assert entry["action"] == "SCMP_ACT_ALLOW"
    conditions = [seccomp.Arg(arg["index"], seccomp.EQ, arg["value"]) for arg in entry.get("args", [])]
    assert all(arg["op"] == "SCMP_CMP_EQ" for arg in entry.get("args", []))
    for name in entry["names"]:
        try:
            syscall_filter.add_rule(seccomp.ALLOW, name, *conditions)
        except (OSError, ValueError):
            unknown.append(name)  # not a call of this architecture: Docker skips it too

libc = ctypes.CDLL(None, use_errno=True)
SYS_PERSONALITY = {"x86_64": 135, "aarch64": 92}[os.uname().machine]

def personality_query():
    result = libc.syscall(SYS_PERSONALITY, ctypes.c_ulong(0xFFFFFFFF))
    return result, ctypes.get_errno() if result == -1 else 0

before = personality_query()
syscall_filter.load()
after = personality_query()
done = subprocess.run(sys.argv[2:], capture_output=True, text=True, timeout=300)
print(json.dumps({"unknown": unknown, "before": before, "after": after, "returncode": done.returncode,
                  "stdout": done.stdout, "stderr": done.stderr[-3000:]}))
"""


def under_profile(*command: str) -> dict[str, object]:
    environment = os.environ | {"SANDBOX_TIER": "bubblewrap"}  # the tier the profile is for, or fail
    done = subprocess.run(
        [sys.executable, "-c", UNDER_PROFILE, str(SECCOMP), *command],
        capture_output=True, text=True, timeout=600, env=environment,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def profile_names() -> set[str]:
    return {name for entry in json.loads(SECCOMP.read_text())["syscalls"] for name in entry["names"]}


def test_the_seccomp_profile_is_dockers_format_default_deny_and_leaves_out_the_dangerous_calls() -> None:
    profile = json.loads(SECCOMP.read_text())
    assert (profile["defaultAction"], profile["defaultErrnoRet"]) == ("SCMP_ACT_ERRNO", 1)  # EPERM
    assert {entry["action"] for entry in profile["syscalls"]} == {"SCMP_ACT_ALLOW"}
    assert all(entry["comment"] for entry in profile["syscalls"])  # each group says why
    assert not profile_names() & REFUSED
    families = sorted(entry["args"][0]["value"] for entry in profile["syscalls"] if entry["names"] == ["socket"])
    assert families == [1, 2, 10, 16]  # AF_UNIX, AF_INET, AF_INET6, AF_NETLINK: no raw, packet or vsock


def test_the_bubblewrap_tier_passes_its_check_under_the_profile_and_a_call_outside_it_is_refused() -> None:
    report = under_profile(str(LINEIT), "doctor", "--json")
    assert report["returncode"] == 0, report["stderr"]
    doctor = json.loads(str(report["stdout"]))
    bubblewrap = next(tier for tier in doctor["tiers"] if tier["name"] == "bubblewrap")
    assert bubblewrap["works"] is True, bubblewrap["reason"]
    assert doctor["chosen_tier"] == "bubblewrap"
    before, after = report["before"], report["after"]
    assert isinstance(before, list) and before[0] >= 0  # allowed without the profile...
    assert after == [-1, 1]  # ...refused under it: EPERM (errno 1)


def test_a_match_of_sandboxed_bots_plays_to_the_end_under_the_profile(tmp_path: Path) -> None:
    replays = tmp_path / "replays"
    report = under_profile(str(LINEIT), "match", "heuristic", "random", "--games", "2", "--replays", str(replays))
    assert report["returncode"] == 0, report["stderr"]
    assert "heuristic" in str(report["stdout"]) and len(list(replays.glob("*.json"))) == 2
    verified = subprocess.run([str(LINEIT), "verify", *map(str, sorted(replays.glob("*.json")))], capture_output=True)
    assert verified.returncode == 0


def test_the_apparmor_profile_allows_what_the_tier_needs_and_compiles_where_it_can(tmp_path: Path) -> None:
    text = APPARMOR.read_text()
    assert "profile lineit-worker" in text and "userns," in text and "pivot_root," in text
    for rule in ("deny ptrace", "deny /proc/sys/kernel/** w", "deny mount fstype=proc"):
        assert rule in text
    parser = shutil.which("apparmor_parser")
    if parser is None:
        pytest.skip("apparmor_parser is not installed: the profile was only read")
    version = subprocess.run([parser, "--version"], capture_output=True, text=True).stdout.split()
    profile = APPARMOR
    if version[3].split(".")[0] < "4":  # "AppArmor parser version 3.0.8"
        # AppArmor 3 (Debian 12) neither mediates user namespaces nor knows the rule: without it
        # the rest must compile as it stands (docs/deployment.md says to drop the line there).
        profile = tmp_path / "apparmor-worker-3"
        profile.write_text(text.replace("\n  userns,\n", "\n"))
        assert profile.read_text() != text
    compiled = subprocess.run(
        [parser, "--skip-kernel-load", "--skip-cache", str(profile)], capture_output=True, text=True
    )
    assert compiled.returncode == 0, compiled.stderr


# The same loading, then the command itself exec'd under the profile (a filter outlives execve).
EXEC_UNDER_PROFILE = (
    UNDER_PROFILE.split("libc = ctypes.CDLL")[0] + "syscall_filter.load()\nos.execv(sys.argv[2], sys.argv[2:])\n"
)


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_real_worker_under_the_profile_plays_a_match_through_postgresql_and_redis(
    tmp_path: Path, version_factory
) -> None:  # type: ignore[no-untyped-def]
    import redis
    from celery_processes import wait_for
    from django.conf import settings
    from django.db import connection

    from lineit_platform.models import WorkerHeartbeat
    from tournaments.models import Match
    from tournaments.services.matches.states import match_schedule

    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    database = connection.settings_dict
    environment = os.environ | {
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
        "SANDBOX_TIER": "bubblewrap",
        "WORKER_HEARTBEAT_SECONDS": "1",
    }
    celery = str(Path(sys.executable).with_name("celery"))
    arguments = [celery, "-A", "lineit_platform.celery", "worker", "-l", "info", "-c", "1", "-Q", "interactive,bulk"]
    log = (tmp_path / "worker.log").open("wb")
    given = subprocess.Popen(
        [sys.executable, "-c", EXEC_UNDER_PROFILE, str(SECCOMP), *arguments, "-n", "profiled@%h"],
        cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        match = match_schedule(versions=[version_factory(), version_factory()], games=2, seed=8)
        wait_for(lambda: Match.objects.get(pk=match.pk).status not in Match.PENDING, "the match", timeout=180)
        assert WorkerHeartbeat.objects.filter(name__startswith="profiled@").exists()  # its heartbeat got through
        status = Path(f"/proc/{given.pid}/status").read_text()
        assert "\nSeccomp:\t2\n" in status  # the worker itself runs under a filter: the profile
    finally:
        os.killpg(given.pid, signal.SIGTERM)
        given.wait(60)
        log.close()
    match.refresh_from_db()
    assert (match.status, match.games_played, match.sandbox_tier) == ("finished", 2, "bubblewrap"), match.error
    assert "Operation not permitted" not in (tmp_path / "worker.log").read_text()
