"""The compiled engine (mypyc, scripts/build_engine.py) and its Python source are one engine.

`make test` compiles the hot modules first, so the suite runs against the compiled engine and
these tests check that it is really in use, that it plays exactly the games the source plays,
and that a source edited after the build is never shadowed by the old compiled module.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import lineit.engine as engine

ENGINE_DIR = Path(engine.__file__).parent
PURE = os.environ.get("LINEIT_PURE_ENGINE") == "1"  # a run of the suite against the source
BUILT = (ENGINE_DIR / "native.json").exists()

# Plays random games and prints a digest of everything observable: every observation of every
# seat along the way, the legal actions, the replays and the final scores.
DIGEST_SCRIPT = """
import hashlib, json, random, sys
from lineit import engine
from lineit.engine import new_game, record_replay, verify_replay
digest = hashlib.sha256()
for players, ruleset in ((2, "standard"), (3, "bga"), (5, "standard")):
    for seed in range(12):
        state = new_game(players, ruleset, seed=seed)
        chooser = random.Random(seed)
        step = 0
        while not state.is_over:
            legal = state.legal_actions()
            if step % 5 == 0:
                seen = [state.observation(seat) for seat in range(players)]
                digest.update(json.dumps([legal, seen], sort_keys=True).encode())
            state.apply(legal[chooser.randrange(len(legal))])
            step += 1
        replay = record_replay(state, [f"p{seat}" for seat in range(players)])
        assert verify_replay(replay).ok
        digest.update(json.dumps([replay, state.scores(), state.ranks()], sort_keys=True).encode())
print(engine.IMPLEMENTATION, digest.hexdigest())
"""


def run_digest(pure: bool) -> tuple[str, str]:
    env = {**os.environ, "LINEIT_PURE_ENGINE": "1" if pure else "0"}
    done = subprocess.run(
        [sys.executable, "-c", DIGEST_SCRIPT], capture_output=True, text=True, env=env, check=True, timeout=300
    )
    implementation, digest = done.stdout.split()
    return implementation, digest


def test_the_compiled_engine_is_the_one_in_use() -> None:
    if PURE:
        assert engine.IMPLEMENTATION == "python"
        return
    assert engine.IMPLEMENTATION == "compiled", engine.WHY_NOT_COMPILED
    assert not engine.state.__file__.endswith(".py")


def test_compiled_and_source_engines_play_the_same_games() -> None:
    compiled = run_digest(pure=False)
    source = run_digest(pure=True)

    assert source[0] == "python"
    if not PURE:
        assert compiled[0] == "compiled"
    assert compiled[1] == source[1]


def copy_of_the_engine(tmp_path: Path) -> Path:
    """lineit/engine copied, compiled modules included, under tmp_path."""
    package = tmp_path / "lineit"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copytree(ENGINE_DIR, package / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    return package / "engine"


def implementation_of_copy(tmp_path: Path) -> list[str]:
    # -S: without site-packages the copy, not the installed project, is what gets imported.
    code = (
        "import lineit.engine as e, lineit.engine.state as s\n"
        "print(e.IMPLEMENTATION); print(s.__file__); print(e.WHY_NOT_COMPILED)\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "LINEIT_PURE_ENGINE"}
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.splitlines()


def test_a_source_edited_after_the_build_is_not_shadowed_by_the_old_compiled_module(tmp_path: Path) -> None:
    copy = copy_of_the_engine(tmp_path)
    if BUILT:
        implementation, module_file, _ = implementation_of_copy(tmp_path)
        assert implementation == "compiled"
        assert not module_file.endswith(".py")

    with (copy / "state.py").open("a") as source:
        source.write("\n# edited after the build\n")
    implementation, module_file, why = implementation_of_copy(tmp_path)

    assert implementation == "python"
    assert module_file == str(copy / "state.py")
    if BUILT:
        assert "state.py changed since it was compiled" in why
