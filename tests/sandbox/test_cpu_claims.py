"""A running match claims a CPU of its own on the host (lineit/sandbox/cpus.py): workers in
separate PID namespaces, which see themselves under the same process ids, no longer all pin their
matches to one CPU; a claim dies with its process; with every CPU held, a match shares one."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from lineit.sandbox.cpus import claim_cpu, release_cpu

ROOT = Path(__file__).resolve().parents[2]

# Claims a CPU among 0 and 1, says its own pid and the CPU, and holds the claim until killed.
HOLDER = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
from lineit.sandbox.cpus import claim_cpu
cpu, claim = claim_cpu([0, 1])
print(os.getpid(), cpu, claim is not None, flush=True)
time.sleep(120)
"""


def holder(claims: Path, *, own_pid_namespace: bool) -> tuple[subprocess.Popen[str], list[str]]:
    command = [sys.executable, "-c", HOLDER, str(ROOT)]
    if own_pid_namespace:
        command = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc", *command]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, env={**os.environ, "LINEIT_CPU_CLAIMS": str(claims)}
    )
    assert process.stdout is not None
    return process, process.stdout.readline().split()


def stop(*processes: subprocess.Popen[str]) -> None:
    for process in processes:
        process.send_signal(signal.SIGKILL)
        process.wait(10)


def test_workers_in_separate_pid_namespaces_get_different_cpus(tmp_path: Path) -> None:
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is missing: the test needs PID namespaces")
    first, (first_pid, first_cpu, first_held) = holder(tmp_path, own_pid_namespace=True)
    second, (second_pid, second_cpu, second_held) = holder(tmp_path, own_pid_namespace=True)
    try:
        assert first_pid == second_pid  # each is the same low pid in its namespace (what fooled pid % cpus)
        assert {first_cpu, second_cpu} == {"0", "1"} and first_held == second_held == "True"
    finally:
        stop(first, second)


def test_a_claim_dies_with_its_process_and_a_full_host_shares(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("LINEIT_CPU_CLAIMS", str(tmp_path))
    first, (_, first_cpu, _) = holder(tmp_path, own_pid_namespace=False)
    second, (_, second_cpu, _) = holder(tmp_path, own_pid_namespace=False)
    assert {first_cpu, second_cpu} == {"0", "1"}
    cpu, claim = claim_cpu([0, 1])  # both held: share one, holding nothing
    assert claim is None and cpu in (0, 1)
    stop(first)  # killed outright: its claim goes with it
    cpu, claim = claim_cpu([0, 1])
    try:
        assert (cpu, claim is not None) == (int(first_cpu), True)
    finally:
        release_cpu(claim)
        stop(second)
    cpu, claim = claim_cpu([0, 1])  # released: the first is free again
    release_cpu(claim)
    assert cpu == 0
