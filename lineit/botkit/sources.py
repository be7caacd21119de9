"""Where a bot comes from: a built-in name, a .py file, a .zip package, or an unpacked folder."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

from .interface import ENTRY_MODULE

BUILTIN_DIR = Path(__file__).resolve().parent.parent / "builtin"  # lineit/builtin
BUILTIN_NAMES = ("random", "greedy", "heuristic", "search")


class BotNotFound(Exception):
    """A bot specification that names no bot."""


@dataclass(frozen=True)
class BotSource:
    """A bot's code on disk. ``path`` is a .py file, a .zip, or a folder holding bot.py."""

    name: str
    path: Path
    builtin: bool = False

    @property
    def is_zip(self) -> bool:
        return self.path.suffix == ".zip"


def builtin_source(name: str) -> BotSource:
    if name not in BUILTIN_NAMES:
        raise BotNotFound(f"no built-in bot {name!r}; built-ins are {', '.join(BUILTIN_NAMES)}")
    return BotSource(name=name, path=BUILTIN_DIR / f"{name}_bot.py", builtin=True)


def resolve_bot(spec: str) -> BotSource:
    """``random`` or ``builtin:random`` for a built-in bot; otherwise a path.

    A path may end in ``.py`` (one file), ``.zip`` (a package with bot.py at its root), or
    name a folder holding bot.py. A folder or a zip without bot.py is refused here, before any
    game starts.
    """
    name = spec.removeprefix("builtin:")
    if name in BUILTIN_NAMES and (spec.startswith("builtin:") or not Path(spec).exists()):
        return builtin_source(name)
    if spec.startswith("builtin:"):
        return builtin_source(name)
    path = Path(spec).expanduser()
    if not path.exists():
        raise BotNotFound(f"{spec}: no such file, and not a built-in bot ({', '.join(BUILTIN_NAMES)})")
    if path.is_dir():
        if not (path / "bot.py").is_file():
            raise BotNotFound(f"{spec}: a bot folder must hold bot.py")
    elif path.suffix not in (".py", ".zip"):
        raise BotNotFound(f"{spec}: a bot is a .py file, a .zip package or a folder with bot.py")
    elif path.suffix == ".zip":
        check_zip_entry(spec, path)
    return BotSource(name=path.stem if path.is_file() else path.name, path=path.resolve())


def check_zip_entry(spec: str, path: Path) -> None:
    """A zip package must be a readable zip with bot.py at its root (not inside a folder). Only
    the member list is read: unpacking, and its limits, are the sandbox's."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError) as error:
        raise BotNotFound(f"{spec}: not a readable zip ({error})") from None
    if ENTRY_MODULE not in names:
        nested = sorted(name for name in names if name.endswith("/" + ENTRY_MODULE))
        hint = f" (found {nested[0]!r}: zip the folder's contents, not the folder)" if nested else ""
        raise BotNotFound(f"{spec}: a zip package must hold {ENTRY_MODULE} at its root{hint}")
