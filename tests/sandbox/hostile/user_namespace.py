import ctypes


def act(observation):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        raise PermissionError(ctypes.get_errno(), "unshare refused")
    raise RuntimeError("ESCAPED: new user namespace")
