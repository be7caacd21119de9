"""The contract a bot is written against (docs/bot-interface.md), and loading one.

A bot is a Python file, or a zip whose root holds ``bot.py``. It defines either a class
``Bot`` (one instance per match; it may keep state) or a plain function ``act``::

    class Bot:
        def start_game(self, info: dict) -> None: ...      # optional
        def act(self, observation: dict) -> str: ...       # required: one of observation["legal_actions"]
        def end_game(self, result: dict) -> None: ...      # optional

This module is also imported by the sandboxed bot host, so it uses nothing but the standard
library.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ENTRY_MODULE = "bot.py"
ENTRY_CLASS = "Bot"
ENTRY_FUNCTION = "act"

_counter = itertools.count()


class BotLoadError(Exception):
    """The bot's code could not be turned into a policy; the message says why."""


class Policy:
    """A loaded bot, whichever of the two shapes it was written in."""

    def __init__(self, target: Any) -> None:
        act = getattr(target, ENTRY_FUNCTION, None)
        if not callable(act):
            raise BotLoadError(f"the bot has no callable '{ENTRY_FUNCTION}(observation)'")
        self._act = act
        self._start = getattr(target, "start_game", None)
        self._end = getattr(target, "end_game", None)

    def start_game(self, info: dict[str, Any]) -> None:
        if callable(self._start):
            self._start(info)

    def act(self, observation: dict[str, Any]) -> Any:
        return self._act(observation)

    def end_game(self, result: dict[str, Any]) -> None:
        if callable(self._end):
            self._end(result)


def entry_file(path: Path) -> tuple[Path, Path]:
    """(entry module, folder to put on sys.path) for a bot file or an unpacked package folder."""
    if path.is_dir():
        entry = path / ENTRY_MODULE
        if not entry.is_file():
            raise BotLoadError(f"the package has no {ENTRY_MODULE} at its root")
        return entry, path
    if path.suffix != ".py":
        raise BotLoadError(f"{path.name}: a bot is a .py file or a .zip package")
    return path, path.parent


def import_module_from(entry: Path, search_path: Path | None) -> ModuleType:
    name = f"lineit_user_bot_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, entry)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"cannot import {entry.name}")
    module = importlib.util.module_from_spec(spec)
    if search_path is not None and str(search_path) not in sys.path:
        sys.path.insert(0, str(search_path))
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def policy_from_module(module: ModuleType) -> Policy:
    bot_class = getattr(module, ENTRY_CLASS, None)
    if bot_class is not None:
        if not isinstance(bot_class, type):
            raise BotLoadError(f"'{ENTRY_CLASS}' must be a class")
        return Policy(bot_class())
    if callable(getattr(module, ENTRY_FUNCTION, None)):
        return Policy(module)
    raise BotLoadError(f"the bot defines neither a class '{ENTRY_CLASS}' nor a function '{ENTRY_FUNCTION}'")


def load_policy(path: Path, *, extract_to: Path | None = None) -> Policy:
    """Import a bot (file, unpacked folder, or zip extracted into ``extract_to``) and wrap it.

    Exceptions raised by the bot's own code while importing propagate unchanged, so the caller
    can classify them (a load failure, with the bot's traceback).
    """
    if path.suffix == ".zip":
        if extract_to is None:
            raise BotLoadError("a zipped bot needs a folder to be unpacked into")
        import zipfile  # here, not at the top: it slows every bot's start-up

        try:
            with zipfile.ZipFile(path) as archive:
                archive.extractall(extract_to)
        except (zipfile.BadZipFile, OSError) as error:
            raise BotLoadError(f"{path.name} is not a readable zip: {error}") from None
        path = extract_to
    entry, search_path = entry_file(path)
    return policy_from_module(import_module_from(entry, search_path))
