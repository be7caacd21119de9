"""Hostile bots against every working tier: none gets out, each gets the right classification,
the calling process survives and no process is left behind (conftest's autouse check)."""

from __future__ import annotations

import os
import re
import socket
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sandbox_helpers import FAST, hostile_bot, play_one_game

from lineit.botkit.limits import Limits

SECRET = "s3cr3t-of-the-worker"
BLOCKED = r"(PermissionError|FileNotFoundError|OSError|ModuleNotFoundError)"


@dataclass(frozen=True)
class Case:
    bot: str
    kind: str | None  # None: the bot plays the game out without failing
    message: str = ""  # regex the failure message must match
    limits: Limits = FAST
    target: str = ""  # which of the world's paths fills __TARGET__
    port: str = ""  # "tcp", "udp" or "pid"
    extra: dict = field(default_factory=dict)


CASES = [
    # network, every kind
    Case("tcp_socket", "exception", "PermissionError", port="tcp"),
    Case("udp_socket", "exception", "PermissionError", port="udp"),
    Case("unix_path_socket", "exception", "PermissionError", target="unix_socket"),
    Case("unix_abstract_socket", "exception", "PermissionError", target="abstract_name"),
    Case("socketpair", "exception", "PermissionError"),
    # processes
    Case("fork", "exception", "PermissionError"),
    Case("subprocess_run", "exception", "PermissionError"),
    Case("exec_shell", "exception", "PermissionError"),
    Case("signal_parent", "exception", "PermissionError"),
    Case("signal_worker", "exception", "PermissionError", port="pid"),
    Case("list_processes", "exception", BLOCKED),
    Case("ptrace_parent", "exception", "PermissionError"),
    Case("user_namespace", "exception", "PermissionError"),
    Case("raise_rlimit", "exception", "(PermissionError|ValueError)"),
    Case("escape_affinity", "exception", "PermissionError"),
    Case("thread_bomb", "exception", "(RuntimeError: can't start new thread|MemoryError)", Limits(memory_mb=128)),
    Case("fd_exhaustion", "exception", "Too many open files"),
    # files
    Case("write_files", "exception", "(Read-only file system|PermissionError|FileNotFoundError)", target="outside"),
    Case("read_file", "exception", BLOCKED, target="secret_file"),
    Case("read_file", "exception", BLOCKED, target="other_bot_file"),
    Case("read_file", "exception", BLOCKED, target="database"),
    Case("read_file", "exception", BLOCKED, target="etc_shadow"),
    Case("list_folder", "exception", BLOCKED, target="other_bot_folder"),
    Case("list_folder", "exception", BLOCKED, target="platform_source"),
    Case("sqlite_database", "exception", "unable to open database file", target="database"),
    Case("read_environment", "exception", "MALLOC_ARENA_MAX"),
    Case("change_file_metadata", "exception", BLOCKED, target="owned_file"),
    Case("watch_files", "exception", BLOCKED, target="outside"),
    # every call outside the allow-list, the forgotten ones included
    Case("denied_by_default", "exception", "every call outside the allow-list was refused", target="allow_list"),
    # a bot using the standard library broadly is not in the way of the allow-list
    Case("stdlib_user", None, limits=Limits(startup_seconds=10, move_timeout_seconds=5)),
    # the platform's code
    Case("import_referee", "load", "(ModuleNotFoundError|ImportError)"),
    Case("import_django_settings", "load", "ModuleNotFoundError"),
    Case("import_site_packages", "load", "No module named 'networkx'"),
    Case("engine_user", None),
    Case("legacy_engine_user", None),  # lineit_platform.engine: the engine's old name, an alias
    # the protocol
    Case("output_without_newline", None),
    Case("stderr_flood", None),
    Case("thread_while_returning", None),
    Case("partial_frame", "timeout", "no answer"),
    Case("giant_frame", "protocol", "frame of"),
    Case("malformed_frame", "protocol", "unexpected message|answers no request"),
    Case("out_of_turn", "protocol", "out of turn"),  # a forged frame lacks the request number
    Case("close_pipes", "protocol", "closed or broke its pipes"),
    Case("not_a_string", "protocol", "not int"),
    Case("illegal_move", "illegal_move", "999"),
    # failures of the bot's own making
    Case("crash_segfault", "crash", "SIGSEGV"),
    Case("exit_call", "exited", r"exit\(3\)"),
    Case("hard_exit", "exited", "status 7"),
    # an exit status that bubblewrap would give a signal death: still an exit
    Case("exit_like_a_signal", "exited", "status 152", extra={"status": 128 + 24}),
    Case("exit_like_a_signal", "exited", "status 139", extra={"status": 128 + 11}),
    Case("raises", "exception", "ValueError: the bot gave up"),
    Case("syntax_error", "load", "SyntaxError"),
    Case("no_entry_point", "load", "neither"),
    Case("slow_import", "timeout", "did not finish loading", Limits(startup_seconds=0.5)),
    Case("busy_loop", "timeout", "per-move timeout"),
    Case("infinite_sleep", "timeout", "per-move timeout"),
    Case(
        "infinite_sleep",
        "time_budget",
        "time bank",
        Limits(move_seconds=0.05, bank_seconds=0.1, move_timeout_seconds=2),
    ),
    Case("memory_hog", "memory", "MemoryError", Limits(memory_mb=128, move_timeout_seconds=10, startup_seconds=5)),
    # failure reports forged by the bot through its host's channel: the label is not the bot's
    *(
        Case("forged_failure", "protocol", "never sends", extra={"phase": phase, "kind": kind})
        for phase, kinds in (
            ("load", ("stopped", "startup_failed", "timeout")),
            ("play", ("stopped", "startup_failed", "timeout", "illegal_move", "crash", "load")),
        )
        for kind in kinds
    ),
]


def allow_list_numbers() -> dict[str, object]:
    """The numbers of the calls the seccomp allow-list admits (with some arguments at least), for
    the bot that calls every other number."""
    import pyseccomp

    from lineit.sandbox.seccomp_filter import allowed_calls

    def number(name: str) -> int:
        return pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name)

    allowed = {found for found in map(number, allowed_calls()) if found >= 0}
    if os.uname().machine == "x86_64":
        # uretprobe and uprobe (Linux 6.11, 6.17) pass through seccomp by the kernel's design: they
        # act only when called from the kernel's uprobe trampoline, and elsewhere end the caller
        # with SIGILL or answer ENXIO. Not the bot's way out, so not called here.
        allowed |= {335, 336}
    return {"allowed": ", ".join(map(str, sorted(allowed))), "highest": 511, "enosys": number("clone3")}


class World:
    """Things outside the bot's folder that a bot must not reach, and listeners for escapes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.outside = root / "outside"
        self.outside.mkdir(parents=True)
        self.secret_file = root / "worker-secret.txt"
        self.secret_file.write_text(SECRET)
        self.secret_file.chmod(0o600)
        self.other_bot_folder = root / "other-bot"
        self.other_bot_folder.mkdir()
        self.other_bot_file = self.other_bot_folder / "bot.py"
        self.other_bot_file.write_text(
            f"# {SECRET}\ndef act(observation):\n    return observation['legal_actions'][0]\n"
        )
        self.owned_file = root / "owned-by-the-worker.txt"
        self.owned_file.write_text("the worker's file\n")
        self.owned_file.chmod(0o640)
        os.utime(self.owned_file, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
        os.setxattr(self.owned_file, "user.kept", b"kept")
        self.owned_before = self.owned_state()
        self.database = root / "db.sqlite3"
        with sqlite3.connect(self.database) as database:
            database.execute("create table secrets (secret text)")
            database.execute("insert into secrets values (?)", (SECRET,))
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.tcp.setblocking(False)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.setblocking(False)
        self.unix_socket = root / "service.sock"
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(str(self.unix_socket))
        self.unix.listen()
        self.unix.setblocking(False)
        self.abstract_name = f"lineit-test-{os.getpid()}-{id(self)}"
        self.abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.abstract.bind("\0" + self.abstract_name)
        self.abstract.listen()
        self.abstract.setblocking(False)

    def fill(self, case: Case) -> dict[str, object]:
        targets = {
            "": "/etc/passwd",
            "outside": self.outside,
            "secret_file": self.secret_file,
            "other_bot_file": self.other_bot_file,
            "other_bot_folder": self.other_bot_folder,
            "database": self.database,
            "unix_socket": self.unix_socket,
            "abstract_name": self.abstract_name,
            "etc_shadow": "/etc/shadow",
            "platform_source": Path(__file__).resolve().parents[2],
            "owned_file": self.owned_file,
            "allow_list": "",
        }
        ports = {"": 0, "tcp": self.tcp.getsockname()[1], "udp": self.udp.getsockname()[1], "pid": os.getpid()}
        filled = {"target": targets[case.target], "port": ports[case.port], **case.extra}
        if case.target == "allow_list":
            filled.update(allow_list_numbers())
        return filled

    def owned_state(self) -> tuple[object, ...]:
        found = os.stat(self.owned_file)
        xattrs = {name: os.getxattr(self.owned_file, name) for name in os.listxattr(self.owned_file)}
        return (found.st_mode, found.st_uid, found.st_gid, found.st_mtime_ns, found.st_atime_ns, xattrs)

    def assert_nothing_got_out(self, bot_folder: Path) -> None:
        for listener in (self.tcp, self.unix, self.abstract):
            with pytest.raises(BlockingIOError):
                listener.accept()
        with pytest.raises(BlockingIOError):
            self.udp.recvfrom(100)
        for folder in (self.outside, bot_folder, Path("/tmp"), Path("/")):
            assert not (folder / "escaped.txt").exists()
        assert self.owned_state() == self.owned_before

    def close(self) -> None:
        for listener in (self.tcp, self.udp, self.unix, self.abstract):
            listener.close()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LINEIT_WORKER_SECRET", SECRET)
    found = World(tmp_path / "world")
    yield found
    found.close()


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.bot}-{case.target or case.kind}")
def test_hostile_bot_is_contained_and_classified(tier: str, case: Case, world: World, tmp_path: Path) -> None:
    source = hostile_bot(case.bot, tmp_path / "bots", **world.fill(case))

    result = play_one_game(tier, source, case.limits)

    assert result.tier == tier
    failures = result.failures
    if case.kind is None:
        assert failures == []
    else:
        assert [(failure.kind, failure.seat) for failure in failures] == [(case.kind, 0)]
        assert re.search(case.message, failures[0].message), failures[0].message
        assert failures[0].bots_fault
    for failure in failures:
        assert SECRET not in failure.message
        assert SECRET not in failure.stderr_tail
        assert "LEAKED" not in failure.message and "ESCAPED" not in failure.message
        assert "FORGED" not in failure.message
    game = result.games[0]
    assert game.forfeits == ([0] if case.kind else [])
    assert len(game.replay["actions"]) > 0 and len(game.scores) == 2
    world.assert_nothing_got_out(source.path.parent)
