"""The engine is a library: no Django, no Celery, no I/O, no global random state."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path

import lineit.engine as engine

ENGINE_DIR = Path(engine.__file__).parent
ALLOWED_IMPORTS = {"__future__", "bisect", "collections", "dataclasses", "hashlib", "random", "typing"}
# The one exception: _implementation.py chooses, at import, between the compiled hot modules
# and their source (it reads native.json and hashes the sources). The rules do no I/O.
LOADER = "_implementation.py"


def test_importing_the_engine_loads_neither_django_nor_celery() -> None:
    code = (
        "import sys, lineit.engine\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'django', 'celery', 'kombu', 'rest_framework'})\n"
        "print(','.join(bad))\n"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == ""


def test_the_engine_imports_only_pure_standard_modules() -> None:
    for source in ENGINE_DIR.glob("*.py"):
        if source.name == LOADER:
            continue
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in ALLOWED_IMPORTS, f"{source.name} imports {name}"


def test_playing_games_leaves_the_global_random_state_alone() -> None:
    random.seed(1234)
    before = random.getstate()
    for seed in range(5):
        state = engine.new_game(3, "bga", seed=seed)
        chooser = random.Random(seed)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply(legal[chooser.randrange(len(legal))])
        engine.determinize(state.observation(0), random.Random(seed))
    assert random.getstate() == before
