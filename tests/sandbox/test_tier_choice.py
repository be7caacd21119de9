"""One decision of the sandbox tier: SANDBOX_TIER is read by the sandbox itself, so the command
line, the worker and ``lineit doctor`` choose alike (they once did not: the variable reached the
worker only)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from sandbox_helpers import WORKING_TIERS

from lineit.sandbox import SandboxUnavailable, requested_tier, require_tier

LINEIT = [sys.executable, "-m", "lineit.cli"]


def lineit(*args: str, tier: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "SANDBOX_TIER": tier}
    return subprocess.run([*LINEIT, *args], capture_output=True, text=True, timeout=120, env=environment)


@pytest.mark.parametrize("tier", WORKING_TIERS)
def test_the_command_line_plays_in_the_tier_the_variable_names(tier: str) -> None:
    played = lineit("match", "random", "random", "--games", "1", "--json", tier=tier)

    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["tier"] == tier


@pytest.mark.parametrize("tier", WORKING_TIERS)
def test_doctor_names_the_tier_the_variable_names(tier: str) -> None:
    doctor = lineit("doctor", tier=tier)

    assert doctor.returncode == 0, doctor.stderr
    assert f"Result: bots run in the {tier} tier (asked for by SANDBOX_TIER)" in doctor.stdout


@pytest.mark.parametrize("tier", WORKING_TIERS)
def test_the_worker_runs_in_the_tier_the_variable_names(tier: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from bots.runner import sandbox_tier_detect

    monkeypatch.setenv("SANDBOX_TIER", tier)

    assert sandbox_tier_detect() == tier == require_tier()


def test_an_unknown_tier_is_refused_everywhere_with_one_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from bots.runner import sandbox_tier_detect
    from lineit_platform.checks import check_platform_settings

    match = lineit("match", "random", "random", "--games", "1", tier="docker")
    doctor = lineit("doctor", tier="docker")
    monkeypatch.setenv("SANDBOX_TIER", "docker")

    assert match.returncode == 1 and "SANDBOX_TIER='docker' is not a sandbox tier" in match.stderr
    assert match.stderr.count("\n") == 1 and "Traceback" not in match.stderr
    assert doctor.returncode == 1 and "SANDBOX_TIER='docker' is not a sandbox tier" in doctor.stdout
    with pytest.raises(SandboxUnavailable, match="is not a sandbox tier"):
        sandbox_tier_detect()
    assert [error.id for error in check_platform_settings() if "SANDBOX_TIER" in error.msg] == ["lineit.E005"]


def test_empty_means_the_best_tier_that_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SANDBOX_TIER", " ")

    assert requested_tier() is None
    if WORKING_TIERS:
        assert require_tier() == WORKING_TIERS[0]
