"""Shared by the ``lineit`` command-line tests (imported by name: tests/ has no packages)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
EXAMPLE_BOT = REPOSITORY / "docs" / "example_bot.py"
SCHEMA = REPOSITORY / "docs" / "replay.schema.json"


@dataclass
class Outcome:
    status: int
    out: str
    err: str

    def error_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


def assert_one_line_error(outcome: Outcome, status: int, *fragments: str) -> None:
    assert outcome.status == status, outcome
    lines = outcome.error_lines()
    assert len(lines) == 1, outcome.err
    assert lines[0].startswith("lineit: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in outcome.err + outcome.out
