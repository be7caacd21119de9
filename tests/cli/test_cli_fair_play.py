"""Every command plays by the fair-play invariant: no bot process meets a deal twice, whatever
--jobs (tests/fair_play/memory_bot.py fails loudly when it does: any failure would make the
command end with status 3, "bots forfeited")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

FAIR_PLAY = Path(__file__).resolve().parent.parent / "fair_play"
MEMORY_BOT = str(FAIR_PLAY / "memory_bot.py")
MEMORY_ONLY_BOT = str(FAIR_PLAY / "memory_only_bot.py")


@pytest.mark.parametrize("jobs", [1, 2])
def test_match_in_the_sandbox(lineit, jobs: int) -> None:
    outcome = lineit("match", MEMORY_BOT, MEMORY_BOT, MEMORY_BOT, "--games", 18, "--jobs", jobs, "--json")
    assert outcome.status == 0, outcome.out + outcome.err
    assert json.loads(outcome.out)["failures"] == []


@pytest.mark.parametrize("jobs", [1, 2])
def test_match_in_process(lineit, jobs: int) -> None:
    outcome = lineit("match", MEMORY_ONLY_BOT, MEMORY_ONLY_BOT, "--games", 24, "--in-process", "--jobs", jobs)
    assert outcome.status == 0, outcome.out + outcome.err


def test_sprt(lineit) -> None:
    outcome = lineit("sprt", MEMORY_BOT, "random", "--batch", 10, "--max-games", 40, "--jobs", 2, "--json")
    assert outcome.status == 0, outcome.out + outcome.err
    assert json.loads(outcome.out)["games"] == 40


def test_tournament(lineit) -> None:
    outcome = lineit(
        "tournament", MEMORY_BOT, MEMORY_BOT, "random", "greedy", "--format", "swiss", "--rounds", 2,
        "--games-per-pairing", 6, "--jobs", 2,
    )  # fmt: skip
    assert outcome.status == 0, outcome.out + outcome.err


def test_each_command_draws_and_prints_its_seed_when_none_is_given(lineit) -> None:
    """A seed nobody chose comes from the system (a guessable one would be a known deck), and is
    printed so that the run can be repeated with --seed."""
    seeds = set()
    for _ in range(2):
        table = lineit("match", "random", "random", "--games", 2, "--in-process").out
        seeds.add(int(re.search(r", seed (\d+)$", table.splitlines()[0]).group(1)))
    assert len(seeds) == 2
    seed = seeds.pop()
    again = lineit("match", "random", "random", "--games", 2, "--in-process", "--seed", seed, "--json").out
    assert json.loads(again)["match"]["seed"] == seed
    sprt = lineit("sprt", "random", "random", "--batch", 2, "--max-games", 2, "--in-process", "--json").out
    assert json.loads(sprt)["seed"] > 0
    tournament = lineit("tournament", "random", "random", "--games-per-pairing", 2, "--in-process").out
    assert re.search(r"seed \d{6,}", tournament.splitlines()[0])
