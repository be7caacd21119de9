"""The world a bot finds: the same in every tier it may run in, and nothing of the machine in it
(issue 23, point 5).

The world probe (hostile/world_probe.py) asks every question we thought of, and returns the
answers as its action: what it can import (the interpreter's site-packages, Debian's
dist-packages, the platform's own packages, before and after adding every folder it could guess to
sys.path, ensurepip's bundled wheels included), where it runs (its interpreter's paths, sys.path,
its file, its working directory, a traceback), what the machine's folders and the worker's own
files look like (stat, lstat, listing, reading, access), every path under its root, its ids, the
machine's name, load, uptime, memory and CPUs, its limits, environment and open descriptors,
what writing answers, and what the bot host left in memory.

In the bubblewrap tier every answer is the sandbox's own. The Landlock tier cannot give the same
world (docs/sandbox.md, "Tiers"): it refuses untrusted bots unless
SANDBOX_LANDLOCK_ACCEPT_HOST_VIEW accepts the difference, and then its answers differ from
bubblewrap's in the documented ways only (HOST_VIEW).
"""

from __future__ import annotations

import json
import os
import re
import site
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import FAST, WORKING_TIERS, hostile_bot, play_one_game

from lineit.botkit.limits import Limits
from lineit.botkit.sources import BotSource
from lineit.sandbox import BUBBLEWRAP, LANDLOCK, SandboxedPlayer, SandboxUnavailable, TierReport
from lineit.sandbox.launch import BOT_ENVIRONMENT, HOSTNAME, rlimits
from lineit.sandbox.runtime import PACKAGE_ROOT, interpreter, package_folders, runtime_folder, sandbox_folder
from lineit.sandbox.tiers import HOST_VIEW_VARIABLE, decide_tier
from lineit.sandbox.world import SANDBOX_BOT, SANDBOX_PACKAGES, SANDBOX_PYTHON, SANDBOX_RUNTIME, system

REPO = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).resolve().parent / "hostile" / "world_probe.py"
SECRET = "s3cr3t-of-the-worker-for-the-world-probe"
LIMITS = Limits(startup_seconds=20, move_timeout_seconds=60, move_seconds=60, bank_seconds=60)
NOBODY = 65534
# What the Landlock tier answers differently (docs/sandbox.md): the machine's paths (its
# interpreter's, the worker's folders, hence every path a traceback or a file name shows), what
# stat and listings say of the machine's files, the real ids of the process and of its parent,
# the user the worker runs as (and so the owner of its descriptors), and the machine's name.
HOST_VIEW = {
    "interpreter": (
        "executable",
        "prefix",
        "path",
        "argv",
        "orig_argv",
        "main file",
        "this file",
        "realpath of this file",
        "cwd",
        "os module",
        "sysconfig paths",
    ),
    "identity": ("pid", "ppid", "native thread id", "pgrp", "uid", "euid", "gid", "egid", "resuid", "resgid"),
    "machine": ("hostname", "platform.node"),
}
# Neither tier's business: glibc computes them from sysinfo, which is refused, and answers with
# whatever its stack held (a different number each time, in either tier).
UNINITIALISED = ("SC_PHYS_PAGES", "SC_AVPHYS_PAGES")


def worker_paths(root: Path) -> list[str]:
    """The worker's own paths a bot could guess: its secret files, VAR_DIR, its temporary
    folders, the platform's source, the interpreter's and the venv's package folders."""
    secret = root / "worker-secret.txt"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    var = root / "var"
    (var / "media").mkdir(parents=True, exist_ok=True)
    (var / "db.sqlite3").write_text(SECRET)
    python = interpreter()
    paths = [secret, var, var / "db.sqlite3", sandbox_folder(), runtime_folder(), Path(tempfile.gettempdir())]
    paths += [REPO, REPO / "lineit_platform" / "settings.py", Path(sys.prefix), *map(Path, site.getsitepackages())]
    paths += [python.stdlib / "site-packages", Path.home(), *package_folders()]
    if python.prefix != Path("/usr"):
        paths += [python.prefix, python.executable]
    return [str(path) for path in dict.fromkeys(paths)]


def probe(tier: str, root: Path) -> tuple[dict[str, Any], int]:
    """The probe's answers in ``tier``, and the host's process id as the worker sees it."""
    code = PROBE.read_text().replace("__TARGETS__", json.dumps(worker_paths(root)))
    bot = root / "bots" / "world_probe.py"
    bot.parent.mkdir(parents=True, exist_ok=True)
    bot.write_text(code)
    player = SandboxedPlayer(BotSource("world_probe", bot), LIMITS, tier=tier)
    try:
        player.start(LIMITS.startup_seconds)
        answers = json.loads(player.act({"legal_actions": ["x"]}, LIMITS.move_timeout_seconds))
        assert player.pid is not None
        return answers, player.pid
    finally:
        player.cleanup()


def markers() -> list[str]:
    """Strings of the machine that no answer may hold."""
    found = [str(sandbox_folder()), "lineit-runtime-", "lineit-bot-", SECRET, str(REPO), sys.prefix]
    if interpreter().prefix != Path("/usr"):
        found.append(str(interpreter().prefix))
    return found


def answers_text(answers: dict[str, Any]) -> str:
    """Every answer as text, without the paths the probe asked about (its questions, not answers)."""
    shown = dict(answers, paths=list(answers["paths"].values()))
    return json.dumps(shown)


def world_tops() -> set[str]:
    machine = system(PACKAGE_ROOT / "engine")
    tops = {"bot", "lineit", "usr", machine.loader.split("/")[1], machine.library_folder.split("/")[1]}
    return tops | ({"packages"} if package_folders() else set())


def sandbox_file(path: str) -> bool:
    prefixes = (f"{SANDBOX_BOT}/", f"{SANDBOX_RUNTIME}/", f"{interpreter().sandbox_stdlib}/", f"{SANDBOX_PACKAGES}/")
    return path.startswith(prefixes) or path.startswith("<")


@pytest.mark.skipif(BUBBLEWRAP not in WORKING_TIERS, reason="bubblewrap does not work on this machine")
def test_the_bubblewrap_tier_shows_a_bot_nothing_of_the_machine(tmp_path: Path) -> None:
    answers, host_pid = probe(BUBBLEWRAP, tmp_path)
    text = answers_text(answers)

    for marker in markers():
        assert marker not in text, marker
    # nothing to import but the standard library, the kit's bot side and numpy, wherever it looks
    for name, outcome in [*answers["imports"].items(), *answers["imports with guessed folders"].items()]:
        if name in ("numpy", "lineit.engine", "lineit.botkit.interface", "lineit.builtin"):
            expected = "/packages/numpy/" if name == "numpy" else "/lineit/lib/lineit/"
            assert outcome.startswith(f"imported from {expected}") or (name == "numpy" and not package_folders())
        else:
            assert outcome.startswith(("ModuleNotFoundError", "ImportError")), (name, outcome)
    # the sandbox's paths only
    python = answers["interpreter"]
    assert python["executable"] == SANDBOX_PYTHON and python["prefix"] == ["/usr"] * 4
    assert python["argv"] == [f"{SANDBOX_RUNTIME}/host.py"]
    assert python["orig_argv"] == [SANDBOX_PYTHON, "-I", "-S", f"{SANDBOX_RUNTIME}/host.py"]
    assert python["this file"] == python["realpath of this file"] == f"{SANDBOX_BOT}/world_probe.py"
    assert python["cwd"] == SANDBOX_BOT and python["main file"] == f"{SANDBOX_RUNTIME}/host.py"
    assert all(entry.startswith(("/bot", "/lineit/", "/usr/", "/packages")) for entry in python["path"])
    # a root of its own: the machine's folders and the worker's files do not exist
    assert sorted(answers["paths"]["/"]["list"]) == sorted(world_tops())
    present = {"/", "/usr/bin", "/lib", "/lib64"} & {f"/{top}" for top in world_tops()} | {"/", "/usr/bin"}
    for path, found in answers["paths"].items():
        if path not in present:
            assert found["stat"] == found["lstat"] == {"error": "ENOENT"}, (path, found)
            assert found["list"] == found["read"] == {"error": "ENOENT"} and found["access"] is False, path
    manifest = answers["manifest"]
    assert manifest["complete"] and manifest["count"] < 20000
    assert {path.split("/")[1] for path in manifest["entries"]} <= world_tops()
    masked = [path for path in manifest["entries"] if path.rsplit("/", 1)[-1] in interpreter().masked]
    assert masked and all(not other.startswith(f"{path}/") for path in masked for other in manifest["entries"])
    # whoever runs the worker: nobody, in a process namespace and on a machine of its own
    identity = answers["identity"]
    assert identity["uid"] == identity["gid"] == identity["euid"] == identity["egid"] == NOBODY
    assert identity["groups"] == {"error": "EPERM"} and identity["umask"] == 0o022
    assert (identity["pid"], identity["ppid"]) == (2, 1) and host_pid != identity["pid"]
    assert {path["stat"].get("uid") for path in answers["paths"].values() if "uid" in path["stat"]} == {NOBODY}
    machine = answers["machine"]
    assert machine["hostname"] == machine["platform.node"] == HOSTNAME == machine["uname"][1]
    assert machine["sysinfo"] == machine["affinity"] == machine["statvfs /"] == {"error": "EPERM"}
    # the limits are the sandbox's, every one; the environment is the sandbox's
    limits = rlimits(LIMITS.memory_mb, 1)
    for name, (soft, hard) in limits.items():
        if name != "cpu":
            assert answers["limits"][f"RLIMIT_{name.upper()}"] == [soft, hard], name
    assert {key: value for key, value in answers["environment"].items() if key != "LC_CTYPE"} == BOT_ENVIRONMENT
    assert sorted(answers["descriptors"]) == ["0", "1", "2", "3", "4", "5"]
    # writing is refused alike wherever it is tried: a read-only file system; mkdir, not allowed
    assert {found["error"] for found in answers["writes"].values()} == {"EROFS", "EPERM"}
    # tracebacks and the host's own frames name the sandbox's files only
    for trace in answers["traceback"].values():
        assert all(sandbox_file(path) for path in re.findall(r'File "([^"]+)"', trace)), trace
    assert all(sandbox_file(frame["file"]) for frame in answers["host state"]["frames"])
    assert answers["host state"]["suspicious"] == [] or all(
        marker not in value for value in answers["host state"]["suspicious"] for marker in markers()
    )


def test_the_landlock_tier_refuses_untrusted_bots_unless_told_the_difference_is_accepted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    only_landlock = TierReport(name=LANDLOCK, attempts=[(BUBBLEWRAP, False, "no bwrap"), (LANDLOCK, True, "works")])
    monkeypatch.delenv(HOST_VIEW_VARIABLE)

    for requested in (None, LANDLOCK):
        with pytest.raises(
            SandboxUnavailable, match=f"does not give bots the sandbox's own world.*{HOST_VIEW_VARIABLE}=1"
        ):
            decide_tier(only_landlock, requested)
    if LANDLOCK in WORKING_TIERS:
        with pytest.raises(SandboxUnavailable, match=HOST_VIEW_VARIABLE):
            SandboxedPlayer(BotSource("random", PROBE), LIMITS, tier=LANDLOCK)
    monkeypatch.setenv(HOST_VIEW_VARIABLE, "maybe")
    with pytest.raises(SandboxUnavailable, match="is not a yes or no"):
        decide_tier(only_landlock, None)
    monkeypatch.setenv(HOST_VIEW_VARIABLE, "1")
    assert decide_tier(only_landlock, None) == decide_tier(only_landlock, LANDLOCK) == LANDLOCK


def comparable(answers: dict[str, Any]) -> dict[str, Any]:
    """The answers that must be the same in every tier: all but HOST_VIEW and the clocks' values,
    with where a module was imported from reduced to whether it was."""
    kept = {key: value for key, value in answers.items() if key not in ("paths", "manifest", "host state")}
    for section, keys in HOST_VIEW.items():
        kept[section] = {key: value for key, value in kept[section].items() if key not in keys}
    for section in ("imports", "imports with guessed folders"):
        kept[section] = {name: outcome.split(" from ")[0] for name, outcome in kept[section].items()}
    kept["machine"] = {key: value for key, value in kept["machine"].items() if key not in UNINITIALISED}
    kept["machine"]["uname"] = [part for index, part in enumerate(kept["machine"]["uname"]) if index != 1]
    kept["identity"]["passwd entry"] = "KeyError" in str(kept["identity"]["passwd entry"])
    kept["clocks"] = {
        key: value for key, value in kept["clocks"].items() if key in ("tzname", "timezone", "local zone")
    }
    kept["descriptors"] = {fd: {**found, "uid": None} for fd, found in kept["descriptors"].items()}
    kept["traceback"] = {key: re.sub(r'File "[^"]+"', "File", text) for key, text in kept["traceback"].items()}
    kept.pop("outside", None)
    return kept


@pytest.mark.skipif(
    {BUBBLEWRAP, LANDLOCK} - set(WORKING_TIERS), reason="needs both tiers (the suite runs as root where they work)"
)
def test_both_tiers_answer_the_probe_alike_but_for_the_documented_host_view(tmp_path: Path) -> None:
    bubblewrap, _ = probe(BUBBLEWRAP, tmp_path)
    landlock, landlock_pid = probe(LANDLOCK, tmp_path)

    assert comparable(bubblewrap) == comparable(landlock)
    # and what differs is what the documentation says: the machine's paths, ids and name
    assert landlock["interpreter"]["this file"].startswith(tempfile.gettempdir())
    assert landlock["identity"]["pid"] == landlock_pid and landlock["identity"]["ppid"] == os.getpid()
    assert landlock["paths"]["/etc/shadow"]["stat"]["kind"] == "file"


def test_a_failing_bots_traceback_names_the_sandbox_files_only(tmp_path: Path) -> None:
    if BUBBLEWRAP not in WORKING_TIERS:
        pytest.skip("bubblewrap does not work on this machine")
    source = hostile_bot("raises", tmp_path / "bots")

    [failure] = play_one_game(BUBBLEWRAP, source, FAST).failures

    paths = re.findall(r'File "([^"]+)"', failure.stderr_tail)
    assert paths and all(sandbox_file(path) for path in paths), failure.stderr_tail
    assert all(marker not in failure.stderr_tail + failure.message for marker in markers())


def test_the_world_holds_every_library_its_programs_load() -> None:
    from lineit.sandbox.elf import read_elf
    from lineit.sandbox.world import LEFT_OUT_MODULES, LOADED_BY_NAME

    machine = system(PACKAGE_ROOT / "engine")
    python = interpreter()
    programs = [python.executable, *(python.stdlib / "lib-dynload").glob("*.so")]
    programs = [path for path in programs if path.name.split(".")[0] not in LEFT_OUT_MODULES]
    given = {*machine.libraries, machine.loader.rsplit("/", 1)[-1]}
    for path in [*programs, *machine.libraries.values()]:
        elf = read_elf(str(path))
        assert elf is not None, path
        assert set(elf.needed) <= given, (path, set(elf.needed) - given)
    assert set(LOADED_BY_NAME) <= given and "libc.so.6" in given
    assert machine.library_folder == str(machine.libraries["libc.so.6"].parent)


def test_a_world_removed_under_a_running_process_is_made_again(tmp_path: Path) -> None:
    """A cleaner of temporary folders (or this process's own clean-up of its folders, as on a
    signal) may remove the sandbox folder of a process that goes on: its next bot starts in a
    world made again, not in one that is gone."""
    from lineit.botkit.scratch import make_writable

    before = sandbox_folder()
    make_writable(before)
    for path in sorted(before.rglob("*"), key=lambda path: len(path.parts), reverse=True):
        path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
    before.rmdir()

    result = play_one_game(WORKING_TIERS[0], BotSource("random", PACKAGE_ROOT / "builtin" / "random_bot.py"))

    assert result.failures == [] and sandbox_folder() != before and sandbox_folder().is_dir()
