"""The tier-parametrised tests run once per working tier; if detection found none, they would
not run at all. So the tiers this machine is expected to have are checked explicitly
(LINEIT_EXPECTED_TIERS, default: both; set it to "" on a machine with none, where every bot
match must then be refused)."""

from __future__ import annotations

import os

import pytest

from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import builtin_source
from lineit.sandbox import SandboxUnavailable, detect_tier, doctor_report, run_sandboxed_match

EXPECTED = [tier for tier in os.environ.get("LINEIT_EXPECTED_TIERS", "bubblewrap,landlock").split(",") if tier]


@pytest.mark.parametrize("tier", EXPECTED)
def test_every_expected_tier_works_here(tier: str) -> None:
    assert tier in detect_tier().working, doctor_report()


def test_without_a_working_tier_bots_are_refused_not_run() -> None:
    if detect_tier().working:
        # A tier that does not exist is refused the same way as no tier at all.
        with pytest.raises((SandboxUnavailable, ValueError)):
            run_sandboxed_match(MatchSpec(2, 1), [builtin_source("random")] * 2, tier="no-such-tier")
    else:
        with pytest.raises(SandboxUnavailable):
            run_sandboxed_match(MatchSpec(2, 1), [builtin_source("random")] * 2)
