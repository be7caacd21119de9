"""Where a bot comes from: a built-in name, a .py file, a .zip package, or an unpacked folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

BUILTIN_DIR = Path(__file__).resolve().parent.parent.parent / "bots" / "builtin"
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
    name a folder holding bot.py.
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
    return BotSource(name=path.stem if path.is_file() else path.name, path=path.resolve())
