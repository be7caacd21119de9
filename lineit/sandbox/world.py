"""The world a bot sees: the same few folders, at the same paths, whatever machine it runs on.

A bot's root holds only what its interpreter needs, under paths of the sandbox's own, never the
machine's (docs/sandbox.md, "What a bot sees")::

    /usr/bin/python3                  the base interpreter (a copy)
    /usr/lib/pythonX.Y/               its standard library, without site-packages, dist-packages
                                      and ensurepip (each masked by an empty folder)
    /lib64/ld-linux-x86-64.so.2       the dynamic loader the interpreter names (a copy)
    /lib/x86_64-linux-gnu/            the libraries the interpreter, its extension modules, numpy
                                      and the compiled engine load, and nothing else (copies)
    /lineit/                          the bot host, the bot interface, the engine, the built-in bots
    /packages/numpy, numpy.libs       the allowed third-party packages, when installed
    /bot/                             the bot's own files, its working directory

and no /etc, /proc, /sys, /dev, /tmp, /home, /var or /run. The copies are made once per process in
its sandbox folder (runtime.py), so every file a bot can stat is either one of those copies or a
file of the standard library, a package or the bot itself: a bot learns the interpreter's
version, not where the machine keeps it, what else it has installed or who else runs on it.
(Copies rather than hard links: a link count would count the worker processes of the machine.)
"""

from __future__ import annotations

import functools
import glob
import importlib.util
import os
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from .elf import library_closure, read_elf, system_folders

SANDBOX_PYTHON = "/usr/bin/python3"
SANDBOX_RUNTIME = "/lineit"
SANDBOX_BOT = "/bot"
SANDBOX_PACKAGES = "/packages"
# Folders of the standard library that hold other packages than the standard library's: the
# interpreter's own site-packages and Debian's dist-packages, and ensurepip, whose bundled wheels
# are pip and setuptools. Each is masked by an empty folder (a bind cannot remove a name).
MASKED = ("site-packages", "dist-packages", "ensurepip")
# glibc's data for the C.UTF-8 locale, which the interpreter switches to at start-up when it can
# (without it, it runs in UTF-8 mode with the C locale instead: a difference a bot could see).
LOCALE = "/usr/lib/locale/C.utf8"
# Extension modules whose libraries are not given: tkinter's need a display (X11, Tk, fonts).
LEFT_OUT_MODULES = ("_tkinter",)
# Loaded by name at run time rather than linked: glibc opens libgcc_s to unwind a thread that
# ends with pthread_exit, which is how a Python thread ends.
LOADED_BY_NAME = ("libgcc_s.so.1",)
# Third-party packages a bot may import when they are installed beside the kit, each with the
# folder of libraries its wheel bundles (numpy.libs: OpenBLAS, gfortran). Nothing else of the
# environment's site-packages is visible.
ALLOWED_PACKAGES = ("numpy",)


@dataclass(frozen=True)  # not slotted: masked is cached in the instance
class Interpreter:
    executable: Path  # the base interpreter's file (never a venv's wrapper, which would expose site-packages)
    prefix: Path
    stdlib: Path  # its standard library folder, lib-dynload included
    sandbox_stdlib: str  # where the sandbox shows it: where the interpreter looks from /usr/bin

    @functools.cached_property
    def masked(self) -> tuple[str, ...]:
        return tuple(name for name in MASKED if (self.stdlib / name).is_dir())


@functools.cache
def interpreter() -> Interpreter:
    """The base interpreter of the running Python; the bot host runs it with -I -S."""
    prefix = Path(sys.base_prefix).resolve()
    paths = sysconfig.get_paths(vars={"base": str(prefix), "platbase": str(prefix)})
    stdlib = Path(paths["stdlib"]).resolve()
    if not (stdlib / "lib-dynload").is_dir():
        raise OSError(f"{stdlib} holds no lib-dynload: this interpreter's layout is not supported by the sandbox")
    # The interpreter finds its standard library from its own location (/usr/bin) at
    # <platlibdir>/pythonX.Y: the path the sandbox gives it.
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return Interpreter(
        executable=Path(sys.executable).resolve(),  # a venv's python is a link to its base interpreter
        prefix=prefix,
        stdlib=stdlib,
        sandbox_stdlib=f"/usr/{sys.platlibdir}/{version}",
    )


@dataclass(frozen=True)
class Package:
    """An allowed third-party package found installed: the folders a bot may read to import it."""

    name: str
    folders: tuple[Path, ...]  # the import package, then the libraries its wheel bundles, if any


@functools.cache
def allowed_packages() -> tuple[Package, ...]:
    """The ALLOWED_PACKAGES installed for this Python, found without importing them."""
    found = []
    for name in ALLOWED_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        if not locations:
            continue  # not installed, or a single-file module: none is allowed
        folder = Path(locations[0]).resolve()
        libraries = folder.parent / f"{name}.libs"
        folders = (folder, libraries.resolve()) if libraries.is_dir() else (folder,)
        found.append(Package(name=name, folders=folders))
    return tuple(found)


def package_folders() -> list[Path]:
    """Every folder of the allowed packages, each bound read-only into the sandbox."""
    return [folder for package in allowed_packages() for folder in package.folders]


@dataclass(frozen=True)
class System:
    """The machine's files that the interpreter needs: its dynamic loader and libraries."""

    loader: str  # the path the interpreter names for its loader (PT_INTERP)
    loader_file: Path
    library_folder: str  # where the sandbox puts the libraries: a folder the loader searches
    libraries: dict[str, Path]  # soname: the machine's file


@functools.cache
def system(engine_folder: Path) -> System:
    """The loader and the closure of the libraries of the interpreter, of its extension modules
    (tkinter's left out), of the allowed packages' and of the compiled engine's."""
    python = interpreter()
    elf = read_elf(str(python.executable))
    if elf is None or elf.interpreter is None:
        raise OSError(f"{python.executable} is not a dynamically linked program the sandbox can read")
    roots = [str(python.executable)]
    for module in sorted(glob.glob(str(python.stdlib / "lib-dynload" / "*.so"))):
        if Path(module).name.split(".")[0] not in LEFT_OUT_MODULES:
            roots.append(module)
    packages = package_folders()
    for folder in [*packages, engine_folder]:
        roots += sorted(glob.glob(str(folder / "**" / "*.so"), recursive=True))
    for name in LOADED_BY_NAME:
        found = _find_library(name)
        if found is not None:
            roots.append(found)
    libraries = library_closure(roots, skip_under=tuple(f"{folder}/" for folder in packages))
    for path in roots:
        if Path(path).name in LOADED_BY_NAME:
            libraries[Path(path).name] = path
    loader_name = os.path.basename(elf.interpreter)
    libraries.pop(loader_name, None)  # libc names the loader: it is given at the path the interpreter asks for
    libc = libraries.get("libc.so.6") or next(iter(libraries.values()), None)
    return System(
        loader=elf.interpreter,
        loader_file=Path(elf.interpreter).resolve(),
        library_folder=str(Path(libc).parent) if libc is not None else "/lib",
        libraries={name: Path(path) for name, path in sorted(libraries.items())},
    )


def _find_library(name: str) -> str | None:
    for folder in system_folders():
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def build_world(root: Path, engine_folder: Path) -> Path:
    """Make ``root``/world: the copies and the mount points above. The caller puts the runtime in
    world/lineit and makes everything read-only."""
    python, machine = interpreter(), system(engine_folder)
    world = root / "world"
    _copy(python.executable, world / SANDBOX_PYTHON.lstrip("/"))
    _copy(machine.loader_file, world / machine.loader.lstrip("/"))
    libraries = world / machine.library_folder.lstrip("/")
    for name, path in machine.libraries.items():
        _copy(path, libraries / name)
    if os.path.isdir(LOCALE):
        shutil.copytree(LOCALE, world / LOCALE.lstrip("/"))
    (world / python.sandbox_stdlib.lstrip("/")).mkdir(parents=True)
    (world / SANDBOX_BOT.lstrip("/")).mkdir()
    (world / SANDBOX_RUNTIME.lstrip("/")).mkdir()
    for folder in package_folders():
        (world / SANDBOX_PACKAGES.lstrip("/") / folder.name).mkdir(parents=True)
    (root / "empty").mkdir()
    return world


def _copy(source: Path, destination: Path) -> None:
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, destination)
    destination.chmod(0o555)


def bubblewrap_binds(world: Path, empty: Path, bot_folder: Path) -> list[str]:
    """bwrap's arguments that make the world the root: the copies, then the standard library,
    its masks, the allowed packages and the bot's folder bound onto their mount points."""
    python = interpreter()
    args = ["--ro-bind", str(world), "/", "--ro-bind", str(python.stdlib), python.sandbox_stdlib]
    for name in python.masked:
        args += ["--ro-bind", str(empty), f"{python.sandbox_stdlib}/{name}"]
    for folder in package_folders():
        args += ["--ro-bind", str(folder), f"{SANDBOX_PACKAGES}/{folder.name}"]
    return [*args, "--ro-bind", str(bot_folder), SANDBOX_BOT]


def landlock_read_paths(runtime: list[Path], engine_folder: Path, bot_folder: Path) -> list[str]:
    """What the Landlock tier lets the host read, on the machine's own paths: the same files as
    the world's, the standard library entry by entry (Landlock cannot hide a subfolder of an
    allowed folder, so site-packages is left out by naming every other entry)."""
    return [*_system_read_paths(engine_folder), *map(str, [*runtime, *package_folders(), bot_folder])]


@functools.cache
def _system_read_paths(engine_folder: Path) -> tuple[str, ...]:
    python, machine = interpreter(), system(engine_folder)
    paths = [python.executable, machine.loader_file, *machine.libraries.values()]
    paths += [entry for entry in sorted(python.stdlib.iterdir()) if entry.name not in python.masked]
    return tuple(map(str, paths))
