"""Reading a replay file, with one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import CommandError


def load_replay(path: Path) -> dict[str, Any]:
    """The replay document in ``path``; CommandError says in one line why it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CommandError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CommandError(f"{path}: is a folder, not a replay file") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise CommandError(f"{path}: cannot read: {reason}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"{path}: not JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    if not isinstance(document, dict):
        raise CommandError(f"{path}: not a Line-it replay (a replay is a JSON object)")
    return document
