# Tries to watch folders outside the sandbox for changes (inotify, fanotify, dnotify), which would
# show the names of other matches' temporary folders as they come and go. Any success is an escape.
import ctypes
import fcntl
import os

TARGET = "__TARGET__"  # a folder outside the sandbox
libc = ctypes.CDLL(None, use_errno=True)
F_NOTIFY = 1026
DN_CREATE = 4
IN_ALL_EVENTS = 0xFFF
FAN_CLASS_NOTIF = 0


def check(result):
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    return result


def attempts():
    for folder in (TARGET, "/tmp", os.path.dirname(os.path.abspath(__file__))):
        yield f"inotify {folder}", lambda folder=folder: check(
            libc.inotify_add_watch(check(libc.inotify_init1(0)), folder.encode(), IN_ALL_EVENTS)
        )
        yield f"dnotify {folder}", lambda folder=folder: fcntl.fcntl(
            os.open(folder, os.O_RDONLY | os.O_DIRECTORY), F_NOTIFY, DN_CREATE
        )
    yield "inotify_init", lambda: check(libc.inotify_init())
    yield "fanotify_init", lambda: check(libc.fanotify_init(FAN_CLASS_NOTIF, os.O_RDONLY))


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
