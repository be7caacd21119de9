"""`lineit doctor --json`: what `lineit doctor` prints, as one JSON object with the keys its
--help documents, found on this machine for real, and the same exit status."""

from __future__ import annotations

import json
import os
import platform
import re

import pytest
from cli_helpers import assert_one_line_error

from lineit import __version__
from lineit.engine import IMPLEMENTATION
from lineit.sandbox import TIERS, require_tier


def documented_keys(help_text: str) -> set[str]:
    keys = help_text.split("--json prints one JSON object", 1)[1]
    return set(re.findall(r"^  ([a-z_]+) ", keys, flags=re.MULTILINE)) | set(re.findall(r"; ([a-z_]+): ", keys))


def test_json_has_exactly_the_documented_keys_and_this_machines_facts(lineit) -> None:
    outcome = lineit("doctor", "--json")
    help_text = lineit("doctor", "--help").out

    assert outcome.status == 0, outcome
    found = json.loads(outcome.out)
    assert set(found) == documented_keys(help_text)
    assert found["kit_version"] == __version__
    assert found["python"]["version"] == platform.python_version()
    assert found["engine"] == {
        "implementation": IMPLEMENTATION,
        "compiled": IMPLEMENTATION == "compiled",
        "why_not_compiled": found["engine"]["why_not_compiled"],
    }
    assert found["kernel"]["release"] == os.uname().release
    assert found["uid"] == os.getuid() and found["running_as_root"] == (os.getuid() == 0)
    assert [tier["name"] for tier in found["tiers"]] == list(TIERS)
    assert all(isinstance(tier["works"], bool) and tier["reason"] for tier in found["tiers"])
    assert found["chosen_tier"] == require_tier() and found["error"] is None


def test_json_says_what_the_text_says(lineit) -> None:
    text = lineit("doctor").out
    found = json.loads(lineit("doctor", "--json").out)

    assert f"engine: {found['engine']['implementation']}" in text
    for tier in found["tiers"]:
        assert f"[{'ok' if tier['works'] else 'FAILED'}] {tier['name']}: " in text
    assert f"bots run in the {found['chosen_tier']} tier" in text
    assert f"kernel: {found['kernel']['release']}" in text
    assert f"interpreter for bots: {found['bot_interpreter']}" in text
    assert f"bwrap: {found['bwrap'] or 'not installed'}" in text


@pytest.mark.parametrize("asked", ["nonsense", "missing"])
def test_json_still_prints_when_no_tier_can_run_bots_and_fails_as_the_text_does(
    lineit, monkeypatch: pytest.MonkeyPatch, asked: str
) -> None:
    """A tier SANDBOX_TIER asks for that cannot run bots (a value that is no tier; a tier that
    does not work here, when one does not): status 1, and the JSON says why."""
    if asked == "missing":
        broken = [tier["name"] for tier in json.loads(lineit("doctor", "--json").out)["tiers"] if not tier["works"]]
        if not broken:
            asked = "nonsense"  # every tier works on this machine: ask for one that does not exist
        else:
            asked = broken[0]
    monkeypatch.setenv("SANDBOX_TIER", asked)

    outcome = lineit("doctor", "--json")
    text = lineit("doctor")

    assert outcome.status == text.status == 1
    found = json.loads(outcome.out)
    assert found["chosen_tier"] is None and "no sandbox tier to run bots in here" in found["error"]
    assert outcome.err == text.err
    assert_one_line_error(outcome, 1, "no sandbox tier to run bots in here")
