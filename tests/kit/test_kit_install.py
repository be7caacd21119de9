"""The kit installs alone: `pip install ./kit` in a fresh virtual environment gives the `lineit`
command with every subcommand working, a sandboxed match included, and nothing of the platform.

The kit is built from a copy of the two folders it is made of (kit/ and lineit/), so the test
also shows that nothing else of the repository is needed, and writes no build folder into the
checkout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLATFORM_ONLY = ("django", "djangorestframework", "celery", "psycopg", "redis", "kombu", "whitenoise", "orjson")

pytestmark = pytest.mark.slow


def requirement_name(requirement: str) -> str:
    for stop in "<>=![; ":
        requirement = requirement.split(stop, 1)[0]
    return requirement.lower()


def test_the_kit_depends_on_what_the_platform_installs_and_nothing_of_the_platform():
    kit = tomllib.loads((ROOT / "kit" / "pyproject.toml").read_text())["project"]
    platform = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    kit_needs = {requirement_name(item): item for item in kit["dependencies"]}
    platform_has = {requirement_name(item): item for item in platform["dependencies"]}
    assert kit_needs and set(kit_needs) <= set(platform_has)
    assert {name: platform_has[name] for name in kit_needs} == kit_needs  # the same version bounds
    assert not set(kit_needs) & set(PLATFORM_ONLY)
    assert kit["scripts"] == platform["scripts"] == {"lineit": "lineit.cli.main:main"}
    for extra, packages in kit.get("optional-dependencies", {}).items():
        assert [p for p in platform["optional-dependencies"][extra]] == packages


@pytest.fixture(scope="module")
def kit_env(tmp_path_factory):
    work = tmp_path_factory.mktemp("kit")
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "native.json", "build", "*.egg-info")
    shutil.copytree(ROOT / "kit", work / "src" / "kit", ignore=ignore)
    shutil.copytree(ROOT / "lineit", work / "src" / "lineit", ignore=ignore, symlinks=False)
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True, timeout=300)
    pip = [str(work / "venv" / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    installed = subprocess.run(
        [*pip, "install", "-q", str(work / "src" / "kit")], capture_output=True, text=True, timeout=900
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    return work


def run(work: Path, *argv: str, **kwargs) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO", "PYTHON"))}
    return subprocess.run(
        [str(work / "venv" / "bin" / "lineit"), *argv],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=work,
        env=env,
        **kwargs,
    )


def test_nothing_of_the_platform_is_installed(kit_env):
    listed = subprocess.run(
        [str(kit_env / "venv" / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    names = {entry["name"].lower() for entry in json.loads(listed.stdout)}
    assert "lineit-kit" in names
    assert not names & set(PLATFORM_ONLY)
    probe = subprocess.run(
        [str(kit_env / "venv" / "bin" / "python"), "-c", "import lineit, sys; print(lineit.__file__)"],
        capture_output=True,
        text=True,
        cwd="/",
        check=True,
    )
    assert str(kit_env / "venv") in probe.stdout  # the installed kit, not the checkout


def test_every_command_works_from_the_kit_alone(kit_env):
    from lineit import __version__

    version = run(kit_env, "--version")
    assert version.returncode == 0 and version.stdout.startswith(f"lineit {__version__} (rules ")
    assert run(kit_env, "doctor").returncode == 0
    rules = run(kit_env, "rules")
    assert rules.returncode == 0 and rules.stdout.strip() == (ROOT / "docs" / "rules.md").read_text().strip()
    new = run(kit_env, "new", "mybot")
    assert new.returncode == 0, new.stderr

    played = run(kit_env, "match", "mybot", "greedy", "--games", "2", "--replays", "replays", "--json")
    assert played.returncode == 0, played.stderr
    summary = json.loads(played.stdout)
    assert summary["match"]["games"] == 2 and len(summary["games"]) == 2
    assert summary["tier"] in ("bubblewrap", "landlock")  # sandboxed, as on the server
    replays = sorted((kit_env / "replays").iterdir())
    assert len(replays) == 2
    verified = run(kit_env, "verify", *map(str, replays))
    assert verified.returncode == 0 and verified.stdout.count(": unsigned; verified: ") == 2
    # The signature check is the extra `verify` (the cryptography package): without it, one line says so.
    key = kit_env / "lineit-replay-key.pem"
    key.write_text("-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA" + "A" * 43 + "=\n-----END PUBLIC KEY-----\n")
    unchecked = run(kit_env, "verify", str(replays[0]), "--key", str(key))
    assert unchecked.returncode == 1 and "pip install 'lineit-kit[verify]'" in unchecked.stderr, unchecked.stderr
    shown = run(kit_env, "show", str(replays[0]))
    assert shown.returncode == 0 and shown.stdout

    tournament = run(kit_env, "tournament", "random", "greedy", "heuristic", "--format", "swiss", "--rounds", "2")
    assert tournament.returncode == 0, tournament.stderr
    sprt = run(kit_env, "sprt", "greedy", "random", "--max-games", "4", "--batch", "2")
    assert sprt.returncode == 0, sprt.stderr
