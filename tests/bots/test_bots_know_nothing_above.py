"""The bots app sits below tournaments and notifications: it announces what happened to a version
(bots/signals.py) and those apps decide what follows. Read from the source (every module of bots/
but its migrations, which are history): it imports nothing of theirs, not even inside a function,
and names none of their modules or tasks (a task sent by name is a tie too)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import bots

ABOVE = ("tournaments", "notifications", "lineit_platform.notifications")
# A dotted name of theirs in a string: "tournaments.tasks.ladder_tick", "notifications.tasks.x".
NAMED = re.compile(r"\b(?:tournaments|notifications)\.[A-Za-z_]")
ROOT = Path(bots.__file__).resolve().parent


def modules() -> list[Path]:
    return sorted(path for path in ROOT.rglob("*.py") if "migrations" not in path.relative_to(ROOT).parts)


def is_above(module: str) -> bool:
    return any(module == name or module.startswith(f"{name}.") for name in ABOVE)


def ties(source: str) -> list[str]:
    """Each import of theirs and each string naming one of their modules, in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names if is_above(alias.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and is_above(node.module):
            found.append(f"from {node.module} import ...")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and NAMED.search(node.value):
            found.append(f"the string {node.value!r}")
    return found


def test_bots_imports_nothing_from_the_apps_above_and_names_none_of_their_tasks() -> None:
    assert len(modules()) > 10 and ROOT / "services.py" in modules()
    found = {str(path.relative_to(ROOT)): ties(path.read_text()) for path in modules()}
    assert {path: tie for path, tie in found.items() if tie} == {}


def test_the_check_sees_a_tie() -> None:
    """The checker itself: each kind of tie it must find, found."""
    source = (
        "from tournaments.models import Match\n"
        "import notifications.services\n"
        "def f():\n"
        "    from lineit_platform.notifications import notify\n"
        "    send_after_commit('tournaments.tasks.ladder_tick', what='x')\n"
    )
    assert len(ties(source)) == 4
    assert ties("from .signals import version_changed\nname = 'bots.tasks.bot_version_validate_task'\n") == []
