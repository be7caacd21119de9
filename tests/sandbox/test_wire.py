"""The pipe between the parent and the bot host: one format, written once in host.py, which the
host runs with ``-I -S`` before any bot code and which the parent's end imports."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lineit.botkit.failures import PROTOCOL
from lineit.sandbox import host, protocol
from lineit.sandbox.exits import describe_exit

IMPORT_HOST = """
import sys
sys.path.insert(0, sys.argv[1])
before = set(sys.modules)
import host
print(" ".join(sorted(set(sys.modules) - before)))
"""


def test_the_host_imports_only_the_standard_library_before_the_bot() -> None:
    """As the sandbox starts it: isolated, no site, from its own folder."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", IMPORT_HOST, str(Path(host.__file__).parent)],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = done.stdout.split()
    assert "host" in imported
    outside = [name for name in imported if name.partition(".")[0] not in {"host", *sys.stdlib_module_names}]
    assert outside == []


@pytest.fixture
def ends() -> Iterator[tuple[protocol.Channel, host.Channel]]:
    """The parent's end and the host's end of two pipes, in this process."""
    to_host_read, to_host_write = os.pipe()
    from_host_read, from_host_write = os.pipe()
    parent = protocol.Channel(to_host_write, from_host_read)
    yield parent, host.Channel(to_host_read, from_host_write)
    parent.close()
    for fd in (to_host_read, from_host_write):
        os.close(fd)


def test_a_request_reaches_the_host_and_its_answer_the_parent(ends: tuple[protocol.Channel, host.Channel]) -> None:
    parent, bot_host = ends
    deadline = time.monotonic() + 5
    parent.send(marshal.dumps(("act", {"hand": [3, 7]})), deadline)
    assert bot_host.receive() == ("act", {"hand": [3, 7]})
    bot_host.send(host.ACTION, "play 7 é")
    assert parent.receive(deadline) == (protocol.ACTION, "play 7 é".encode())


@pytest.mark.parametrize("name", ["CONFINED", "READY", "ACTION", "ACK", "FAILURE", "CANARY"])
def test_every_kind_the_host_sends_is_read_as_its_kind(ends: tuple[protocol.Channel, host.Channel], name: str) -> None:
    parent, bot_host = ends
    deadline = time.monotonic() + 5
    parent.send(marshal.dumps(("start_game", None)), deadline)
    bot_host.receive()
    bot_host.send(getattr(host, name), "text")
    assert parent.receive(deadline) == (getattr(protocol, name), b"text")


def test_an_answer_to_no_request_asked_is_a_protocol_violation(ends: tuple[protocol.Channel, host.Channel]) -> None:
    parent, bot_host = ends
    deadline = time.monotonic() + 5
    parent.send(marshal.dumps(("start_game", None)), deadline)
    bot_host.receive()
    bot_host.seq = 2  # a bot's thread forging the answer to a later request
    bot_host.send(host.ACK)
    with pytest.raises(protocol.ProtocolViolation, match="answers no request"):
        parent.receive(deadline)


def test_the_host_exit_status_for_lost_pipes_reads_as_a_protocol_failure() -> None:
    assert describe_exit(host.PIPE_LOST, bubblewrap=False) == (PROTOCOL, "the bot closed or broke its pipes")
