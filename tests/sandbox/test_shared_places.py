"""What the kit keeps in places other users can write (the CPU claims under /dev/shm, replay
folders, its temporary folders) is made without following links, owned and checked: another user
who gets there first, with a link, a hard link, a named pipe or a folder of their own, cannot make
a root ``lineit`` change, write or remove a file of their choosing (lineit/botkit/safe_paths.py).

The tests run as root; "another user" is uid 65534 (nobody), whose files os.chown makes."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from lineit.botkit.safe_paths import UnsafePath, secure_folder
from lineit.botkit.scratch import make_writable, prefix
from lineit.cli.main import main, remove_own_folders
from lineit.sandbox.cpus import claim_cpu, release_cpu

NOBODY = 65534

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="plants files of another user: needs root")


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def owned_by_nobody(path: Path) -> Path:
    os.lchown(path, NOBODY, NOBODY)
    return path


@pytest.fixture
def victim(tmp_path: Path) -> tuple[Path, Path]:
    """A root folder (0755) and a root file (0600) that another user would like to make writable."""
    folder = tmp_path / "etc"
    folder.mkdir(mode=0o755)
    secret = folder / "shadow"
    secret.write_text("root's secret\n")
    secret.chmod(0o600)
    return folder, secret


def assert_untouched(victim: tuple[Path, Path]) -> None:
    folder, secret = victim
    assert mode_of(folder) == 0o755 and mode_of(secret) == 0o600
    assert secret.read_text() == "root's secret\n"
    assert sorted(path.name for path in folder.iterdir()) == ["shadow"]  # nothing made in there


@pytest.fixture
def claims(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shared = tmp_path / "shm"
    shared.mkdir()
    shared.chmod(0o1777)  # as /dev/shm
    monkeypatch.setenv("LINEIT_CPU_CLAIMS", str(shared / "lineit-cpus"))
    return shared / "lineit-cpus"


def claim_and_release(allowed: list[int]) -> tuple[int, bool]:
    cpu, descriptor = claim_cpu(allowed)
    release_cpu(descriptor)
    return cpu, descriptor is not None


# --- CPU claims -----------------------------------------------------------------------------------


def test_a_link_planted_as_the_claims_folder_is_not_followed(claims: Path, victim) -> None:  # type: ignore[no-untyped-def]
    claims.symlink_to(victim[0], target_is_directory=True)
    owned_by_nobody(claims)
    _, held = claim_and_release([0, 1])
    assert_untouched(victim)  # was chmod-ed 1777 and filled with claims
    assert held  # claimed in this user's private folder instead
    private = claims.with_name(f"lineit-cpus-{os.geteuid()}")
    assert private.is_dir() and not private.is_symlink() and mode_of(private) == 0o700


def test_links_hard_links_and_pipes_planted_as_claim_files_are_not_followed(claims: Path, victim) -> None:  # type: ignore[no-untyped-def]
    claims.mkdir(mode=0o1777)
    claims.chmod(0o1777)
    os.symlink(victim[1], claims / "cpu-0")
    owned_by_nobody(claims / "cpu-0")
    os.link(victim[1], claims / "cpu-1")  # protected_hardlinks stops an unprivileged user; not every host has it
    os.mkfifo(claims / "cpu-2")
    owned_by_nobody(claims / "cpu-2")
    for allowed in ([0], [1], [2], [0, 1, 2]):
        claim_and_release(allowed)  # never hangs on the pipe, never raises
    assert_untouched(victim)  # the link was opened O_CREAT and fchmod-ed 0666
    assert (claims / "cpu-0").is_symlink() and stat.S_ISFIFO((claims / "cpu-2").lstat().st_mode)


def test_a_claims_folder_made_by_another_user_is_not_trusted(claims: Path) -> None:
    claims.mkdir()
    claims.chmod(0o777)
    owned_by_nobody(claims)
    _, held = claim_and_release([0])
    assert held and list(claims.iterdir()) == []  # nothing of ours in their folder
    assert claims.with_name(f"lineit-cpus-{os.geteuid()}").joinpath("cpu-0").is_file()


def test_a_claims_folder_below_another_user_s_folder_is_not_used(tmp_path: Path, monkeypatch, victim) -> None:  # type: ignore[no-untyped-def]
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    theirs.chmod(0o777)
    owned_by_nobody(theirs)  # they can rename our folder away and put a link in its place
    monkeypatch.setenv("LINEIT_CPU_CLAIMS", str(theirs / "lineit-cpus"))
    assert claim_and_release([0, 1])[1] is False  # shared by process id, as on a full host
    assert list(theirs.iterdir()) == []


def test_claims_still_work_in_a_shared_sticky_folder_of_root_s(claims: Path) -> None:
    first_cpu, first = claim_cpu([0, 1])
    second_cpu, second = claim_cpu([0, 1])
    try:
        assert first is not None and second is not None and {first_cpu, second_cpu} == {0, 1}
        assert mode_of(claims) == 0o1777 and mode_of(claims / "cpu-0") == 0o644
    finally:
        release_cpu(first)
        release_cpu(second)


# --- Replay folders -------------------------------------------------------------------------------


def test_a_link_planted_at_a_replay_s_name_is_replaced_not_written_through(tmp_path: Path, victim) -> None:  # type: ignore[no-untyped-def]
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)  # replays into /tmp, say
    os.symlink(victim[1], shared / "game-0001.json")
    owned_by_nobody(shared / "game-0001.json")
    status = main(["match", "random", "random", "--games", "2", "--in-process", "--replays", str(shared)])
    assert status == 0
    assert_untouched(victim)  # was overwritten with the replay
    written = shared / "game-0001.json"
    assert stat.S_ISREG(written.lstat().st_mode) and written.lstat().st_uid == os.geteuid()


def test_a_replay_folder_of_another_user_s_is_refused(tmp_path: Path, victim, capsys) -> None:  # type: ignore[no-untyped-def]
    link = tmp_path / "replays"
    link.symlink_to(victim[0], target_is_directory=True)
    owned_by_nobody(link)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    owned_by_nobody(theirs)
    for folder in (link, theirs):
        status = main(["match", "random", "random", "--games", "2", "--in-process", "--replays", str(folder)])
        assert status == 1 and "cannot write replays into" in capsys.readouterr().err
    assert_untouched(victim)
    assert list(theirs.iterdir()) == []


def test_a_tournament_s_table_folder_planted_as_a_link_is_refused(tmp_path: Path, victim, capsys) -> None:  # type: ignore[no-untyped-def]
    replays = tmp_path / "replays"
    replays.mkdir()
    replays.chmod(0o1777)
    planted = replays / "round-01-table-01"
    planted.symlink_to(victim[0], target_is_directory=True)
    owned_by_nobody(planted)
    argv = ["tournament", "random", "random", "--games", "2", "--jobs", "1", "--replays", str(replays)]
    status = main(argv)
    assert status != 0 and "cannot write replays into" in capsys.readouterr().err
    assert_untouched(victim)


# --- Temporary folders ----------------------------------------------------------------------------


def test_a_folder_another_user_made_under_our_name_is_left_alone(victim) -> None:  # type: ignore[no-untyped-def]
    theirs = Path(tempfile.mkdtemp(prefix=prefix("bot")))
    try:
        (theirs / "inside").symlink_to(victim[0], target_is_directory=True)
        owned_by_nobody(theirs)
        remove_own_folders()
        assert theirs.is_dir()  # was removed: another user's folder, named as ours
    finally:
        make_writable(theirs)
        for path in theirs.iterdir():
            path.unlink()
        theirs.rmdir()
    assert_untouched(victim)


def test_making_a_tree_writable_chmods_no_link_s_target(tmp_path: Path, victim) -> None:  # type: ignore[no-untyped-def]
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "link").symlink_to(victim[0], target_is_directory=True)
    make_writable(tree)
    assert_untouched(victim)
    assert mode_of(tree / "sub") == 0o700


# --- The check itself -----------------------------------------------------------------------------


def test_secure_folder_trusts_only_root_s_and_this_user_s_folders_and_links(tmp_path: Path, victim) -> None:  # type: ignore[no-untyped-def]
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    # Trusted: a sticky folder on the way, a link of root's (/var/run -> /run), a folder made anew.
    (tmp_path / "run").symlink_to(sticky, target_is_directory=True)
    made = secure_folder(tmp_path / "run" / "ours" / "deeper")
    assert made == sticky / "ours" / "deeper" and mode_of(made) == 0o700
    # Refused: a link of another user's, anywhere on the way; a folder of theirs on the way or at
    # the end; a folder others may write in that is not sticky; a file where a folder should be.
    (sticky / "link").symlink_to(victim[0], target_is_directory=True)
    owned_by_nobody(sticky / "link")
    theirs = owned_by_nobody(Path(tempfile.mkdtemp(dir=sticky)))
    open_to_all = sticky / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    (sticky / "file").write_text("")
    for path in (
        sticky / "link",
        sticky / "link" / "below",
        theirs,
        theirs / "below",
        open_to_all,
        open_to_all / "below",
    ):
        with pytest.raises(UnsafePath):
            secure_folder(path)
    with pytest.raises(NotADirectoryError):
        secure_folder(sticky / "file")
    assert_untouched(victim)
    assert list(theirs.iterdir()) == [] and list(open_to_all.iterdir()) == []
    # A folder for every user (CPU claims): root's or ours, and sticky if others may write.
    assert secure_folder(sticky, shared=True) == sticky
    with pytest.raises(UnsafePath):
        secure_folder(open_to_all, shared=True)
