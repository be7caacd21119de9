"""The intervals of the results table (`lineit match`): possible ranges for win rates at any sample."""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict

import pytest

from lineit.cli.report import plus_minus, rate_range
from lineit.stats.intervals import grouped_rate, wilson_interval

RATE = re.compile(r"(\d+\.\d)% \[(\d+\.\d)%, (\d+\.\d)%\]")
SCORE = re.compile(r"(-?\d+\.\d) ± (n/a|\d+\.\d)")


def table_rows(out: str) -> dict[str, str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("bot "))
    rows = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        rows[line.split()[0]] = line
    return rows


@pytest.mark.parametrize(
    ("bots", "games"), [(("random", "greedy"), 1), (("random", "greedy"), 4), (("random", "random", "greedy"), 5)]
)
def test_small_samples_give_win_rate_ranges_inside_zero_and_one_hundred(lineit, bots, games):
    outcome = lineit("match", *bots, "--games", games, "--in-process")
    assert outcome.status == 0, outcome.err
    rows = table_rows(outcome.out)
    assert len(rows) == len(bots)
    for row in rows.values():
        rate, low, high = (float(x) for x in RATE.search(row).groups())
        assert 0.0 <= low <= rate <= high <= 100.0
        assert high - low >= 20.0  # five games or fewer: a wide range, never "± 0.0%"
        assert row.count("±") == 1  # the mean score's; the win rate has its range instead
        score = SCORE.search(row)
        assert score is not None
        assert score.group(2) == "n/a" or float(score.group(2)) > 0.0


def test_the_json_summary_gives_the_wilson_range_of_the_games_it_lists(lineit):
    outcome = lineit("match", "random", "random", "greedy", "--games", "6", "--seed", "4", "--in-process", "--json")
    assert outcome.status == 0
    summary = json.loads(outcome.out)
    assert summary["format_version"] == 2
    for entrant, row in enumerate(summary["entrants"]):
        groups: dict[int, list[float]] = defaultdict(list)
        for game in summary["games"]:
            seat = game["entrants"].index(entrant)
            winners = game["ranks"].count(1)
            groups[game["deal"]].append(1 / winners if game["ranks"][seat] == 1 else 0.0)
        rate, low, high = grouped_rate(list(groups.values()))
        assert row["win_rate"] == pytest.approx(rate)
        assert row["win_interval"] == pytest.approx([low, high])
        assert 0.0 <= row["win_interval"][0] <= row["win_rate"] <= row["win_interval"][1] <= 1.0
        assert row["score_interval"] is None or row["score_interval"] > 0


def test_a_rate_is_shown_with_its_range_rounded_outwards():
    low, high = wilson_interval(1, 4)  # 0.04559, 0.69936
    assert rate_range(0.25, low, high) == "25.0% [4.5%, 70.0%]"
    assert rate_range(1.0, *wilson_interval(4, 4)) == "100.0% [51.0%, 100.0%]"
    assert rate_range(0.0, *wilson_interval(0, 4)) == "0.0% [0.0%, 49.0%]"


def test_a_mean_score_without_a_measurable_spread_says_so():
    assert plus_minus(12.25, math.inf) == "12.2 ± n/a"
    assert plus_minus(-3.0, 1.04) == "-3.0 ± 1.0"
