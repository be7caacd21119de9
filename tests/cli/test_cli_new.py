"""`lineit new NAME` writes a starter bot that plays sandboxed, passes its own tests and is
accepted by the platform; it refuses, changing nothing, whatever it cannot do cleanly.
`lineit new --zip FOLDER` packs a bot folder as the site takes it, and the example package bot
of docs/examples plays zipped and is accepted too."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from cli_helpers import REPOSITORY, assert_one_line_error

from bots.models import BotVersion
from bots.services import bot_create, bot_version_upload, bot_version_validate
from lineit.cli.new import starter_files

STARTER = REPOSITORY / "lineit" / "starter"
PACKAGE_BOT = REPOSITORY / "docs" / "examples" / "package_bot"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def listing(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def test_it_writes_the_starter_files_and_nothing_else(lineit, here: Path) -> None:
    outcome = lineit("new", "mybot")

    assert outcome.status == 0, outcome
    assert listing(here) == ["mybot", "mybot/README.md", "mybot/bot.py", "mybot/test_bot.py"]
    assert (here / "mybot" / "bot.py").read_text() == (STARTER / "bot.py").read_text()
    assert (here / "mybot" / "test_bot.py").read_text() == (STARTER / "test_bot.py").read_text()
    readme = (here / "mybot" / "README.md").read_text()
    assert "{{" not in readme and "lineit match mybot/ heuristic" in readme
    assert "lineit new --zip mybot/" in readme and "/api/bots/$BOT/versions/" in readme
    assert "docs/bot-interface.md" in readme and "shared/" not in readme
    assert (here / "mybot").stat().st_mode & 0o777 == 0o777 & ~current_umask()
    assert "mybot/" in outcome.out and outcome.err == ""


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_the_templates_are_package_resources() -> None:
    assert starter_files("x") == {
        name: (STARTER / name).read_text().replace("{{name}}", "x") for name in ("bot.py", "test_bot.py", "README.md")
    }


@pytest.mark.parametrize(
    "name", ["a/b", "../x", "..", ".", ".hidden", "a b", "", "x" * 65, "bot\n", "été", "9lives", "a\\b"]
)
def test_a_bad_name_is_refused_and_nothing_written(lineit, here: Path, name: str) -> None:
    outcome = lineit("new", name)

    assert_one_line_error(outcome, 2, "cannot be a bot folder's name")
    assert listing(here) == [] and listing(here.parent / here.name) == []


@pytest.mark.parametrize("kind", ["folder", "file", "broken link"])
def test_an_existing_path_is_refused_and_left_alone(lineit, here: Path, kind: str) -> None:
    if kind == "folder":
        (here / "mybot").mkdir()
        (here / "mybot" / "bot.py").write_text("mine\n")
    elif kind == "file":
        (here / "mybot").write_text("mine\n")
    else:
        (here / "mybot").symlink_to(here / "nowhere")
    before = listing(here)

    outcome = lineit("new", "mybot")

    assert_one_line_error(outcome, 2, "mybot already exists")
    assert listing(here) == before
    if kind == "folder":
        assert (here / "mybot" / "bot.py").read_text() == "mine\n"


def test_an_unwritable_place_is_refused(lineit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    # root writes in a 0555 folder: then a place nobody may create folders in, the kernel's /sys
    place = Path("/sys") if os.geteuid() == 0 else locked
    monkeypatch.chdir(place)
    before = sorted(os.listdir(place))

    outcome = lineit("new", "mybot")

    assert_one_line_error(outcome, 2, "cannot write in")
    assert sorted(os.listdir(place)) == before


def test_a_failure_while_writing_leaves_nothing(here: Path) -> None:
    """A real failure half-way (files may be at most 1000 bytes: bot.py is larger), in a child
    process: the temporary folder goes, and no NAME/ appears."""
    script = (
        "import resource, signal, sys\n"
        "from lineit.cli.main import main\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))\n"
        "sys.exit(main(['new', 'mybot']))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)

    assert done.returncode == 1, done
    assert done.stderr.strip() == "lineit: error: cannot write mybot/: File too large"
    assert listing(here) == []


def test_the_starter_plays_sandboxed_against_heuristic(lineit, here: Path) -> None:
    lineit("new", "mybot")

    outcome = lineit("match", "mybot", "heuristic", "--games", "4", "--json")

    assert outcome.status == 0, outcome
    result = json.loads(outcome.out)
    assert result["tier"] in ("bubblewrap", "landlock")  # not in-process: the sandbox, as on the server
    assert [entrant["failures"] for entrant in result["entrants"]] == [0, 0]


@pytest.mark.parametrize("how", [["-m", "pytest", "-q", "-p", "no:randomly"], ["test_bot.py"]])
def test_the_starters_own_tests_pass(lineit, here: Path, how: list[str]) -> None:
    lineit("new", "mybot")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}

    done = subprocess.run(
        [sys.executable, *how], cwd=here / "mybot", env=environment, capture_output=True, text=True, timeout=300
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout or done.stdout.count("ok ") == 3, done.stdout
    assert "no sandbox here" not in done.stdout + done.stderr  # this machine has one: the tests used it


def test_the_starters_tests_fail_for_a_bot_that_fails(lineit, here: Path) -> None:
    lineit("new", "mybot")
    bot = here / "mybot" / "bot.py"
    source = bot.read_text()
    broken = source.replace(
        "        if len(legal) == 1:\n", "        return 'take 999 line'\n        if len(legal) == 1:\n"
    )
    assert broken != source
    bot.write_text(broken)

    done = subprocess.run(
        [sys.executable, "test_bot.py"], cwd=here / "mybot", capture_output=True, text=True, timeout=300
    )

    assert done.returncode == 1
    assert "FAILED test_it_plays_each_built_in_bot: mybot: illegal_move" in done.stderr


def zip_names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return sorted(archive.namelist())


def test_zip_packs_the_folder_without_caches_the_same_bytes_every_time(lineit, here: Path) -> None:
    lineit("new", "mybot")
    for junk in ("__pycache__/bot.cpython-311.pyc", ".pytest_cache/v/x", ".hidden", "stale.pyc"):
        (here / "mybot" / junk).parent.mkdir(parents=True, exist_ok=True)
        (here / "mybot" / junk).write_bytes(b"junk")
    (here / "mybot" / "data").mkdir()
    (here / "mybot" / "data" / "table.json").write_text("[1, 2]")

    outcome = lineit("new", "--zip", "mybot/")
    first = (here / "mybot.zip").read_bytes()
    (here / "mybot.zip").unlink()
    (here / "mybot" / "bot.py").touch()  # a newer date changes nothing
    lineit("new", "--zip", "mybot")

    assert outcome.status == 0, outcome
    assert zip_names(here / "mybot.zip") == ["README.md", "bot.py", "data/table.json", "test_bot.py"]
    assert (here / "mybot.zip").read_bytes() == first


def test_zip_refuses_what_the_site_would_refuse_and_writes_nothing(lineit, here: Path) -> None:
    lineit("new", "mybot")
    (here / "mybot" / "secret").symlink_to("/etc/passwd")
    linked = lineit("new", "--zip", "mybot")
    (here / "mybot" / "secret").unlink()
    os.mkfifo(here / "mybot" / "pipe")
    piped = lineit("new", "--zip", "mybot")
    (here / "mybot" / "pipe").unlink()
    (here / "empty").mkdir()
    no_bot = lineit("new", "--zip", "empty")
    missing = lineit("new", "--zip", "nothing")
    (here / "mybot.zip").write_text("mine")
    existing = lineit("new", "--zip", "mybot")

    assert_one_line_error(linked, 2, "secret is a link")
    assert_one_line_error(piped, 2, "pipe is not a regular file")
    assert_one_line_error(no_bot, 2, "must hold bot.py")
    assert_one_line_error(missing, 2, "no such folder")
    assert_one_line_error(existing, 2, "mybot.zip already exists")
    assert (here / "mybot.zip").read_text() == "mine"
    assert sorted(os.listdir(here)) == ["empty", "mybot", "mybot.zip"]  # no temporary file left


def test_the_example_package_bot_plays_zipped_in_the_sandbox(lineit, here: Path) -> None:
    shutil.copytree(PACKAGE_BOT, here / "package_bot", ignore=shutil.ignore_patterns("__pycache__"))

    zipped = lineit("new", "--zip", "package_bot")
    outcome = lineit("match", "package_bot.zip", "heuristic", "--games", "4", "--json")

    assert zipped.status == 0, zipped
    names = zip_names(here / "package_bot.zip")
    assert names == ["bot.py", "evaluation.py", "tables/__init__.py", "tables/weights.json"]
    assert outcome.status == 0, outcome
    result = json.loads(outcome.out)
    assert result["tier"] in ("bubblewrap", "landlock")
    assert [entrant["failures"] for entrant in result["entrants"]] == [0, 0]


def test_the_package_bot_reads_its_data_file(lineit, here: Path) -> None:
    """Its weights really come from tables/weights.json: without the file it cannot load."""
    shutil.copytree(PACKAGE_BOT, here / "package_bot", ignore=shutil.ignore_patterns("__pycache__"))
    (here / "package_bot" / "tables" / "weights.json").unlink()

    outcome = lineit("match", "package_bot", "random", "--games", "2")

    assert outcome.status == 3 and "weights.json" in outcome.out + outcome.err


@pytest.mark.django_db
@pytest.mark.parametrize("which", ["starter", "package bot"])
def test_the_platform_accepts_the_zipped_bot(lineit, here: Path, alice, which: str) -> None:  # type: ignore[no-untyped-def]
    if which == "starter":
        lineit("new", "mybot")
    else:
        shutil.copytree(PACKAGE_BOT, here / "mybot", ignore=shutil.ignore_patterns("__pycache__"))
    lineit("new", "--zip", "mybot")

    version = bot_version_upload(
        bot=bot_create(owner=alice, name=f"alices-{which.replace(' ', '-')}"),
        uploaded_by=alice,
        filename="mybot.zip",
        content=(here / "mybot.zip").read_bytes(),
        validate=False,
    )
    version = bot_version_validate(version_id=version.pk)

    assert version.kind == "zip"
    assert version.status == BotVersion.Status.ACTIVE, version.rejection_reason


def test_new_is_listed_by_help(lineit) -> None:
    outcome = lineit("--help")
    assert "starter bot folder" in outcome.out
