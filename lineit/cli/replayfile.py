"""Reading a replay file, with one-line errors.

A replay file may come from anywhere: whatever it is (a named pipe, a device, a file of any size,
JSON nested or numbered to break the parser), the answer is one line saying why it is not a
replay, never a hang, a crash or all of memory. Its work is bounded: at most MAX_REPLAY_BYTES are
read, JSON nested more than json_limits.MAX_DEPTH levels is refused (a replay nests 4), and
verifying replays at most one game's actions."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from lineit.botkit import json_limits

from .errors import CommandError, InputRejected

# A replay is a few kilobytes (a 5-player game about 10 KB); anything this large is not one.
MAX_REPLAY_BYTES = 16 * 1024 * 1024
# What a replay's texts are cut to when shown (the platform's names are 40 characters, a failure's
# message at most 1,000): a file from anywhere cannot fill the terminal with one name.
NAME_LENGTH = 100
FIELD_LENGTH = 60
MESSAGE_LENGTH = 1000


def read_replay_bytes(path: Path, max_bytes: int = MAX_REPLAY_BYTES, what: str = "a replay") -> bytes:
    """The file's bytes, refused unless it is a regular file of at most ``max_bytes`` (a
    replay's, or ``what`` else the command reads: a key file)."""
    try:
        # O_NONBLOCK: opening a named pipe must not wait for a writer (it is refused just after).
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise InputRejected(f"{path}: no such file") from None
    except OSError as error:
        raise CommandError(f"{path}: cannot read: {error.strerror or error}") from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        if stat.S_ISDIR(mode):
            raise InputRejected(f"{path}: is a folder, not {what} file")
        raise InputRejected(f"{path}: not a regular file (a named pipe, a device or a socket), not {what}")
    with os.fdopen(descriptor, "rb") as file:
        try:
            data = file.read(max_bytes + 1)
        except OSError as error:
            raise CommandError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(data) > max_bytes:
        size = f"{max_bytes // 2**20} MiB" if max_bytes >= 2**20 else f"{max_bytes // 2**10} KiB"
        raise InputRejected(f"{path}: larger than {size}, not {what}")
    return data


class RepeatedKey(ValueError):
    pass


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when a key repeats: readers disagree on which of the two counts
    (Python takes the last), so a file could show one thing and verify another."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise RepeatedKey(key[:40])
        found[key] = value
    return found


def load_replay(path: Path) -> dict[str, Any]:
    """The replay document in ``path``; CommandError says in one line why it cannot be read."""
    try:
        text = read_replay_bytes(path).decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputRejected(f"{path}: not a Line-it replay (not UTF-8 text: {error})") from None
    try:
        document = json_limits.loads(text, object_pairs_hook=_object_without_repeats)
    except RepeatedKey as error:
        raise InputRejected(
            f"{path}: not a Line-it replay (the key {error.args[0]!r} appears twice in one object)"
        ) from None
    except json.JSONDecodeError as error:
        raise InputRejected(f"{path}: not JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    except json_limits.JSONTooDeep as error:
        raise InputRejected(f"{path}: not a Line-it replay (its JSON is nested too deeply: {error})") from None
    except ValueError:  # an integer literal longer than Python converts
        digits = sys.get_int_max_str_digits()
        raise InputRejected(f"{path}: not a Line-it replay (a number of more than {digits:,} digits)") from None
    if not isinstance(document, dict):
        raise InputRejected(f"{path}: not a Line-it replay (a replay is a JSON object)")
    return document
