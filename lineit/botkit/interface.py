"""The contract a bot is written against (docs/bot-interface.md), and loading one.

A bot is a Python file, or a zip whose root holds ``bot.py``. It defines either a class
``Bot`` (one instance per match; it may keep state) or a plain function ``act``::

    class Bot:
        def start_game(self, info: dict) -> None: ...      # optional
        def act(self, observation: dict) -> str: ...       # required: one of observation["legal_actions"]
        def end_game(self, result: dict) -> None: ...      # optional

The dicts' keys and value types are declared in ``lineit.botkit.types`` (``Observation``,
``GameInfo``, ``GameResult``), which a bot may use for its annotations.

This module is also imported by the sandboxed bot host before every bot's start-up, so it uses
nothing but the standard library and imports as little of it as it can: ``os``, ``sys`` and
``itertools`` at the top, the import machinery's own (already loaded) functions when a bot is
loaded, no pathlib, typing or importlib.util (each costs milliseconds). Paths may be given as
``str`` or ``pathlib.Path``; returned paths have the type given.
"""

from __future__ import annotations

import itertools
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, TypeVar

    PathT = TypeVar("PathT", bound="str | os.PathLike[str]")

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


def entry_file(path: PathT) -> tuple[PathT, PathT]:
    """(entry module, folder to put on sys.path) for a bot file or an unpacked package folder."""
    text: str = os.fspath(path)  # type: ignore[arg-type]
    kind = type(path)
    if os.path.isdir(text):
        entry = os.path.join(text, ENTRY_MODULE)
        if not os.path.isfile(entry):
            raise BotLoadError(f"the package has no {ENTRY_MODULE} at its root")
        return kind(entry), path  # type: ignore[call-arg]
    name = os.path.basename(text)
    if not name.endswith(".py"):
        raise BotLoadError(f"{name}: a bot is a .py file or a .zip package")
    return path, kind(os.path.dirname(text))  # type: ignore[call-arg]


def _import_machinery() -> tuple[Any, Any]:
    try:  # what importlib.util re-exports, without importlib.util's own imports
        from importlib._bootstrap import module_from_spec
        from importlib._bootstrap_external import spec_from_file_location
    except ImportError:  # pragma: no cover  (another Python's layout)
        from importlib.util import module_from_spec, spec_from_file_location
    return spec_from_file_location, module_from_spec


def import_module_from(entry: str | os.PathLike[str], search_path: str | os.PathLike[str] | None) -> ModuleType:
    spec_from_file_location, module_from_spec = _import_machinery()
    name = f"lineit_user_bot_{next(_counter)}"
    entry_text = os.fspath(entry)
    spec = spec_from_file_location(name, entry_text)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"cannot import {os.path.basename(entry_text)}")
    module = module_from_spec(spec)
    if search_path is not None and os.fspath(search_path) not in sys.path:
        sys.path.insert(0, os.fspath(search_path))
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


def load_policy(path: str | os.PathLike[str], *, extract_to: str | os.PathLike[str] | None = None) -> Policy:
    """Import a bot (file, unpacked folder, or zip extracted into ``extract_to``) and wrap it.

    Exceptions raised by the bot's own code while importing propagate unchanged, so the caller
    can classify them (a load failure, with the bot's traceback).
    """
    if os.fspath(path).endswith(".zip"):
        if extract_to is None:
            raise BotLoadError("a zipped bot needs a folder to be unpacked into")
        import zipfile  # here, not at the top: it slows every bot's start-up

        try:
            with zipfile.ZipFile(path) as archive:
                archive.extractall(extract_to)
        except (zipfile.BadZipFile, OSError) as error:
            raise BotLoadError(f"{os.path.basename(os.fspath(path))} is not a readable zip: {error}") from None
        path = extract_to
    entry, search_path = entry_file(path)
    return policy_from_module(import_module_from(entry, search_path))
