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

from .errors import CommandError

# A replay is a few kilobytes (a 5-player game about 10 KB); anything this large is not one.
MAX_REPLAY_BYTES = 16 * 1024 * 1024
# What a replay's texts are cut to when shown (the platform's names are 40 characters, a failure's
# message at most 1,000): a file from anywhere cannot fill the terminal with one name.
NAME_LENGTH = 100
FIELD_LENGTH = 60
MESSAGE_LENGTH = 1000


def read_replay_bytes(path: Path) -> bytes:
    """The file's bytes, refused unless it is a regular file of at most MAX_REPLAY_BYTES."""
    try:
        # O_NONBLOCK: opening a named pipe must not wait for a writer (it is refused just after).
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise CommandError(f"{path}: no such file") from None
    except OSError as error:
        raise CommandError(f"{path}: cannot read: {error.strerror or error}") from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        if stat.S_ISDIR(mode):
            raise CommandError(f"{path}: is a folder, not a replay file")
        raise CommandError(f"{path}: not a regular file (a named pipe, a device or a socket), not a replay")
    with os.fdopen(descriptor, "rb") as file:
        try:
            data = file.read(MAX_REPLAY_BYTES + 1)
        except OSError as error:
            raise CommandError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(data) > MAX_REPLAY_BYTES:
        raise CommandError(f"{path}: larger than {MAX_REPLAY_BYTES // 2**20} MiB, not a replay")
    return data


def load_replay(path: Path) -> dict[str, Any]:
    """The replay document in ``path``; CommandError says in one line why it cannot be read."""
    try:
        text = read_replay_bytes(path).decode("utf-8")
    except UnicodeDecodeError as error:
        raise CommandError(f"{path}: cannot read: {error}") from None
    try:
        document = json_limits.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"{path}: not JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    except json_limits.JSONTooDeep as error:
        raise CommandError(f"{path}: not a Line-it replay (its JSON is nested too deeply: {error})") from None
    except ValueError:  # an integer literal longer than Python converts
        digits = sys.get_int_max_str_digits()
        raise CommandError(f"{path}: not a Line-it replay (a number of more than {digits:,} digits)") from None
    if not isinstance(document, dict):
        raise CommandError(f"{path}: not a Line-it replay (a replay is a JSON object)")
    return document
