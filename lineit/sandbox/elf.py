"""The shared libraries a program needs, read from its ELF headers, without running it.

The sandbox gives a bot the interpreter and the libraries that it and its extension modules load,
and nothing else of the machine's library folders (world.py). ``ldd`` would tell, but it runs
the dynamic loader once per file (about a second for the hundred extension modules of the
interpreter and numpy); reading the headers takes milliseconds. What is read: the program
interpreter (PT_INTERP), and from the dynamic section the DT_NEEDED names and the DT_RPATH /
DT_RUNPATH folders, resolved the way the dynamic loader resolves them (the object's own run
path with $ORIGIN, then the folders of ``/etc/ld.so.conf``, then the system folders).
"""

from __future__ import annotations

import glob
import mmap
import os
import struct
import sys
from dataclasses import dataclass

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NULL, DT_NEEDED, DT_STRTAB, DT_RPATH, DT_RUNPATH = 0, 1, 5, 15, 29


@dataclass(frozen=True)
class Elf:
    machine: int  # e_machine: a library of another architecture is skipped
    is_64: bool
    interpreter: str | None  # the dynamic loader a program asks for (PT_INTERP)
    needed: tuple[str, ...]  # DT_NEEDED
    run_path: tuple[str, ...]  # DT_RUNPATH, else DT_RPATH, with $ORIGIN expanded


def read_elf(path: str) -> Elf | None:
    """The headers of an ELF file, None if it is not one (or not a dynamic one we can read)."""
    try:
        with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
                return None
            is_64, order = data[4] == 2, "<" if data[5] == 1 else ">"
            return _parse(data, is_64, order, os.path.dirname(path))
    except (OSError, ValueError, struct.error, IndexError, UnicodeDecodeError):
        return None  # unreadable, empty (mmap refuses), or not a well-formed ELF file


def _parse(data: mmap.mmap, is_64: bool, order: str, origin: str) -> Elf:
    machine = struct.unpack_from(order + "H", data, 18)[0]  # e_machine
    if is_64:
        phoff = struct.unpack_from(order + "Q", data, 32)[0]
        phentsize, phnum = struct.unpack_from(order + "HH", data, 54)
        program = order + "IIQQQQQQ"  # type, flags, offset, vaddr, paddr, filesz, memsz, align
        dynamic_entry = order + "qQ"
    else:
        phoff = struct.unpack_from(order + "I", data, 28)[0]
        phentsize, phnum = struct.unpack_from(order + "HH", data, 42)
        program = order + "IIIIIIII"  # type, offset, vaddr, paddr, filesz, memsz, flags, align
        dynamic_entry = order + "iI"
    loads, dynamic, interpreter = [], None, None
    for index in range(phnum):
        fields = struct.unpack_from(program, data, phoff + index * phentsize)
        kind = fields[0]
        offset, vaddr, filesz = (fields[2], fields[3], fields[5]) if is_64 else (fields[1], fields[2], fields[4])
        if kind == PT_LOAD:
            loads.append((vaddr, offset, filesz))
        elif kind == PT_DYNAMIC:
            dynamic = (offset, filesz)
        elif kind == PT_INTERP:
            interpreter = data[offset : offset + filesz].rstrip(b"\0").decode()
    needed_offsets, run_path, rpath, strtab = [], None, None, None
    if dynamic is not None:
        size = struct.calcsize(dynamic_entry)
        for start in range(dynamic[0], dynamic[0] + dynamic[1], size):
            tag, value = struct.unpack_from(dynamic_entry, data, start)
            if tag == DT_NULL:
                break
            if tag == DT_NEEDED:
                needed_offsets.append(value)
            elif tag == DT_STRTAB:
                strtab = _file_offset(loads, value)
            elif tag == DT_RUNPATH:
                run_path = value
            elif tag == DT_RPATH:
                rpath = value

    def string(offset: int) -> str:
        assert strtab is not None
        start = strtab + offset
        return data[start : data.find(b"\0", start)].decode()

    paths = run_path if run_path is not None else rpath
    folders = tuple(
        folder.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
        for folder in (string(paths).split(":") if paths is not None and strtab is not None else [])
        if folder
    )
    needed = tuple(string(offset) for offset in needed_offsets) if strtab is not None else ()
    return Elf(machine=machine, is_64=is_64, interpreter=interpreter, needed=needed, run_path=folders)


def _file_offset(loads: list[tuple[int, int, int]], address: int) -> int:
    for vaddr, offset, filesz in loads:
        if vaddr <= address < vaddr + filesz:
            return address - vaddr + offset
    return address


def system_folders() -> list[str]:
    """The folders the dynamic loader searches after a library's own run path: those of
    /etc/ld.so.conf (its cache is made from them), then the built-in ones."""
    multiarch = getattr(sys.implementation, "_multiarch", "")
    configured = _configured_folders("/etc/ld.so.conf", set())
    built_in = [f"/lib/{multiarch}", f"/usr/lib/{multiarch}"] if multiarch else []
    built_in += ["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
    return list(dict.fromkeys(folder for folder in configured + built_in if os.path.isdir(folder)))


def _configured_folders(path: str, seen: set[str]) -> list[str]:
    if path in seen:
        return []
    seen.add(path)
    try:
        with open(path) as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    folders: list[str] = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line.startswith("include "):
            pattern = line.split(None, 1)[1]
            pattern = pattern if pattern.startswith("/") else os.path.join(os.path.dirname(path), pattern)
            for included in sorted(glob.glob(pattern)):
                folders += _configured_folders(included, seen)
        elif line.startswith("/"):
            folders.append(line)
    return folders


def library_closure(roots: list[str], *, skip_under: tuple[str, ...] = ()) -> dict[str, str]:
    """{soname: path} of every library the ``roots`` (programs, extension modules) load, and the
    libraries those load, resolved as the dynamic loader would. Libraries found under
    ``skip_under`` (folders the sandbox shows anyway, such as a package's bundled libraries,
    reached through $ORIGIN) are not listed, and a name found nowhere is left out (the program
    would fail to load it outside the sandbox as well)."""
    folders = system_folders()
    found: dict[str, str] = {}
    pending = [(root, read_elf(root)) for root in roots]
    reference = next((elf for _, elf in pending if elf is not None), None)
    while pending:
        _, elf = pending.pop()
        if elf is None:
            continue
        for name in elf.needed:
            if name in found:
                continue
            path = _resolve(name, elf, [*elf.run_path, *folders], reference)
            if path is None:
                continue
            if not any(path.startswith(prefix) for prefix in skip_under):
                found[name] = path
            pending.append((path, read_elf(path)))
    return found


def _resolve(name: str, requester: Elf, folders: list[str], reference: Elf | None) -> str | None:
    if "/" in name:
        return name if os.path.isfile(name) else None
    for folder in folders:
        candidate = os.path.join(folder, name)
        if not os.path.isfile(candidate):
            continue
        elf = read_elf(candidate)
        if elf is not None and (elf.machine, elf.is_64) == (requester.machine, requester.is_64):
            return os.path.normpath(candidate)
    return None
