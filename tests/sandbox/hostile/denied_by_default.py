# Calls every system call number the sandbox's allow-list does not name, with zero arguments,
# and expects each to be refused (EPERM; clone3 answers ENOSYS) without running. One that runs is
# a call the allow-list forgot, and an escape.
import ctypes
import errno
import os

ALLOWED = {__ALLOWED__}  # numbers of the allowed (and conditionally allowed) calls
HIGHEST = __HIGHEST__
ENOSYS_CALLS = {__ENOSYS__}
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def act(observation):
    ran = []
    for number in range(HIGHEST + 1):
        if number in ALLOWED:
            continue
        ctypes.set_errno(0)
        result = libc.syscall(ctypes.c_long(number), 0, 0, 0, 0, 0, 0)
        expected = errno.ENOSYS if number in ENOSYS_CALLS else errno.EPERM
        if result != -1 or ctypes.get_errno() != expected:
            ran.append(f"{number} -> {result} ({os.strerror(ctypes.get_errno())})")
    if ran:
        raise RuntimeError(f"ESCAPED: {', '.join(ran)}")
    raise PermissionError(f"every call outside the allow-list was refused, {HIGHEST + 1 - len(ALLOWED)} of them")
