import ctypes
import os


def act(observation):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, os.getppid(), 0, 0) != 0:  # PTRACE_ATTACH
        raise PermissionError(ctypes.get_errno(), "ptrace refused")
    raise RuntimeError("ESCAPED: ptrace attached")
