"""Fixtures for the ``lineit`` command-line tests: run it, and write bots to files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import Outcome

from lineit.cli.main import main


@pytest.fixture
def lineit(capsys: pytest.CaptureFixture[str]) -> Callable[..., Outcome]:
    """``lineit("match", "random", ...)`` runs the command in this process and captures it."""

    def run(*argv: object) -> Outcome:
        status = main([str(arg) for arg in argv])
        captured = capsys.readouterr()
        return Outcome(status, captured.out, captured.err)

    return run


@pytest.fixture
def bot_file(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write a bot's source into a file of the given name and return its path."""

    def write(name: str, source: str) -> Path:
        path = tmp_path / name
        path.write_text(source, encoding="utf-8")
        return path

    return write
