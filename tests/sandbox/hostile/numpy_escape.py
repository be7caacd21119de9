# Uses numpy to get out: read a file outside its folder (fromfile, load, memmap), write one
# (save, tofile), map the engine writable (memmap, mmap), and call libc through numpy's ctypes
# helpers (socket, fork). Each must be refused.
import ctypes
import mmap
import os

import numpy as np
import numpy.ctypeslib

import lineit.engine

SECRET = "__TARGET__"
OUTSIDE = "__OUTSIDE__"
ENGINE_STATE = os.path.join(os.path.dirname(lineit.engine.__file__), "state.py")


def libc_call(name):
    folder = next(path for path in ("/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib64") if os.path.isdir(path))
    libc = numpy.ctypeslib.load_library("libc.so.6", folder)
    result = getattr(libc, name)(*((2, 1, 0) if name == "socket" else ()))
    if result < 0:
        raise OSError(ctypes.get_errno(), f"{name} refused")
    return result


def mmap_engine():
    with open(ENGINE_STATE, "rb") as handle:
        mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_WRITE)[:1] = b"#"


ATTEMPTS = {
    "fromfile": lambda: np.fromfile(SECRET, dtype=np.uint8),
    "load": lambda: np.load(SECRET, allow_pickle=True),
    "memmap read": lambda: np.memmap(SECRET, mode="r"),
    "memmap engine r+": lambda: np.memmap(ENGINE_STATE, mode="r+"),
    "mmap engine writable": mmap_engine,
    "save outside": lambda: np.save(os.path.join(OUTSIDE, "escaped.npy"), np.zeros(3)),
    "tofile outside": lambda: np.zeros(3).tofile(os.path.join(OUTSIDE, "escaped.txt")),
    "libc socket": lambda: libc_call("socket"),
    "libc fork": lambda: libc_call("fork"),
}


def act(observation):
    got_out = []
    for name, attempt in ATTEMPTS.items():
        try:
            attempt()
        except (OSError, ValueError, TypeError):
            continue
        got_out.append(name)
    if got_out:
        raise RuntimeError(f"ESCAPED: {', '.join(got_out)}")
    raise PermissionError(f"every escape through numpy was refused, {len(ATTEMPTS)} attempts")
