# Tries to change the mode (setuid bit included), owner, times and extended attributes of a file
# the worker owns outside the sandbox, by path and through an O_PATH descriptor, with the
# os functions and with raw system calls. Any success is an escape.
import ctypes
import os

TARGET = "__TARGET__"
AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
libc = ctypes.CDLL(None, use_errno=True)


def raw(name, *args):
    function = getattr(libc, name)
    if function(*args) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def attempts():
    uid, gid = os.getuid(), os.getgid()
    path = TARGET.encode()
    yield "chmod", lambda: os.chmod(TARGET, 0o4777)
    yield "fchmodat nofollow", lambda: os.chmod(TARGET, 0o4777, follow_symlinks=False)
    yield "chown", lambda: os.chown(TARGET, uid, gid)
    yield "lchown", lambda: os.lchown(TARGET, uid, gid)
    yield "utime", lambda: os.utime(TARGET, (1, 1))
    yield "utime nofollow", lambda: os.utime(TARGET, (1, 1), follow_symlinks=False)
    yield "setxattr", lambda: os.setxattr(TARGET, "user.lineit", b"ESCAPED")
    yield "lsetxattr", lambda: os.setxattr(TARGET, "user.lineit", b"ESCAPED", follow_symlinks=False)
    yield "removexattr", lambda: os.removexattr(TARGET, "user.kept")
    yield "getxattr", lambda: os.getxattr(TARGET, "user.kept")
    yield "listxattr", lambda: os.listxattr(TARGET)
    yield "raw chmod", lambda: raw("chmod", path, 0o4777)
    yield "raw utimes", lambda: raw("utimes", path, None)

    def through_descriptor(action):
        def attack():
            fd = os.open(TARGET, os.O_PATH)
            try:
                action(fd)
            finally:
                os.close(fd)

        return attack

    yield "fchownat empty path", through_descriptor(lambda fd: raw("fchownat", fd, b"", uid, gid, AT_EMPTY_PATH))
    yield "utimensat descriptor", through_descriptor(lambda fd: raw("utimensat", fd, None, None, 0))
    yield "fsetxattr", through_descriptor(lambda fd: os.setxattr(fd, "user.lineit", b"ESCAPED"))
    yield "fchmod", through_descriptor(lambda fd: os.chmod(fd, 0o4777))


def act(observation):
    escaped, blocked = [], []
    for name, attack in attempts():
        try:
            attack()
        except OSError as error:
            blocked.append(f"{name}: {error.strerror}")
        else:
            escaped.append(name)
    if escaped:
        raise RuntimeError(f"ESCAPED: {', '.join(escaped)}")
    raise PermissionError(f"every attempt failed ({'; '.join(blocked)})")
