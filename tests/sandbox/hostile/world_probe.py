# The world probe: asks the sandbox every question whose answer could describe the machine it
# runs on or tell one tier from the other, and returns every answer as its action (JSON).
# tests/sandbox/test_world.py runs it in each tier, compares the answers and looks for the host in
# them. __TARGETS__ is replaced by a JSON list of the worker's own paths (its secret file, VAR_DIR,
# its temporary folders, its interpreter's and venv's site-packages): a bot could guess them.
import errno
import gc
import hashlib
import importlib
import json
import os
import resource
import sys
import threading
import time
import traceback

TARGETS = json.loads(r"""__TARGETS__""")
PATHS = [
    "/",
    "/etc",
    "/etc/shadow",
    "/etc/passwd",
    "/etc/hostname",
    "/etc/localtime",
    "/etc/os-release",
    "/etc/ld.so.cache",
    "/usr/lib/os-release",
    "/usr/share/zoneinfo",
    "/usr/share/zoneinfo/UTC",
    "/usr/bin",
    "/usr/lib/python3/dist-packages",
    "/usr/local",
    "/proc",
    "/proc/1",
    "/proc/self",
    "/proc/uptime",
    "/proc/loadavg",
    "/proc/meminfo",
    "/proc/cpuinfo",
    "/sys",
    "/sys/devices/system/cpu/online",
    "/dev",
    "/dev/null",
    "/dev/shm",
    "/home",
    "/root",
    "/tmp",
    "/var",
    "/run",
    "/opt",
    "/boot",
    "/lib",
    "/lib64",
    "/bin",
    "/sbin",
    *TARGETS,
]
FORBIDDEN = [
    "pip",
    "setuptools",
    "pkg_resources",
    "_distutils_hack",
    "wheel",
    "yaml",
    "requests",
    "urllib3",
    "certifi",
    "idna",
    "six",
    "apt",
    "apt_pkg",
    "debian",
    "networkx",
    "django",
    "celery",
    "pyseccomp",
    "lineit.sandbox",
    "lineit.botkit.referee",
    "lineit_platform.settings",
    "bots",
    "tournaments",
]
ALLOWED = ["numpy", "lineit.engine", "lineit.botkit.interface", "lineit.builtin"]
MARKERS = ("/tmp", "/root", "/home", "/work", "/proc", "lineit-runtime", "lineit-bot", "site-packages", ".venv")


def error_name(error):
    number = getattr(error, "errno", None)
    if number:
        return errno.errorcode.get(number, str(number))
    return f"{type(error).__name__}: {error}"


def ask(question, *args):
    try:
        return question(*args)
    except BaseException as error:  # noqa: BLE001  (every failure is an answer)
        return {"error": error_name(error)}


def described(found):
    kind = "dir" if os.path.stat.S_ISDIR(found.st_mode) else "file" if os.path.stat.S_ISREG(found.st_mode) else "other"
    answer = {"kind": kind, "mode": oct(found.st_mode & 0o7777), "uid": found.st_uid, "gid": found.st_gid}
    answer["nlink"] = found.st_nlink
    if kind == "file":
        answer["size"] = found.st_size
    return answer


def path_answers(path):
    def content():
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read(1 << 20)).hexdigest()[:16]

    return {
        "stat": ask(lambda: described(os.stat(path))),
        "lstat": ask(lambda: described(os.lstat(path))),
        "list": ask(lambda: sorted(os.listdir(path))[:100]),
        "read": ask(content),
        "readlink": ask(os.readlink, path),
        "access": ask(os.access, path, os.F_OK),
    }


def manifest(top="/", limit=20000):
    """Every path reachable from the root, with what stat says of it (not inode numbers or times)."""
    found = {}
    pending = [top]
    while pending and len(found) < limit:
        folder = pending.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as error:
            found[folder] = {"error": error_name(error)}
            continue
        for entry in entries:
            try:
                info = described(entry.stat(follow_symlinks=False))
            except OSError as error:
                info = {"error": error_name(error)}
            if entry.is_symlink():
                info = {"kind": "link", "to": ask(os.readlink, entry.path)}
            found[entry.path] = info
            if info.get("kind") == "dir":
                pending.append(entry.path)
    digest = hashlib.sha256(json.dumps(found, sort_keys=True).encode()).hexdigest()[:16]
    shown = dict(sorted(found.items())[:4000])  # the whole world fits; a host's /usr would not
    return {"count": len(found), "complete": not pending, "digest": digest, "entries": shown}


def imports(names):
    answers = {}
    for name in names:
        try:
            module = importlib.import_module(name)
            answers[name] = f"imported from {getattr(module, '__file__', None)}"
        except BaseException as error:  # noqa: BLE001
            answers[name] = f"{type(error).__name__}: {error}"
    return answers


def guessed_package_folders():
    import sysconfig

    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    guesses = [
        sysconfig.get_paths().get("purelib"),
        sysconfig.get_paths().get("platlib"),
        f"{sys.prefix}/lib/{version}/site-packages",
        f"{sys.base_prefix}/lib/{version}/site-packages",
        "/usr/lib/python3/dist-packages",
        f"/usr/local/lib/{version}/dist-packages",
        f"/usr/lib/{version}/site-packages",
        *(path for path in TARGETS if path.endswith("-packages")),
    ]
    bundled = os.path.join(os.path.dirname(os.__file__), "ensurepip", "_bundled")
    guesses += [os.path.join(bundled, name) for name in ask(os.listdir, bundled) if isinstance(name, str)]
    return [path for path in guesses if path]


def sysinfo():
    import ctypes

    class Sysinfo(ctypes.Structure):
        _fields_ = [
            ("uptime", ctypes.c_long),
            ("loads", ctypes.c_ulong * 3),
            ("totalram", ctypes.c_ulong),
            ("freeram", ctypes.c_ulong),
            ("sharedram", ctypes.c_ulong),
            ("bufferram", ctypes.c_ulong),
            ("totalswap", ctypes.c_ulong),
            ("freeswap", ctypes.c_ulong),
            ("procs", ctypes.c_ushort),
            ("padding", ctypes.c_char * 22),
        ]

    libc = ctypes.CDLL(None, use_errno=True)
    info = Sysinfo()
    if libc.sysinfo(ctypes.byref(info)) != 0:
        return {"error": errno.errorcode.get(ctypes.get_errno())}
    return {"uptime": info.uptime, "procs": info.procs, "totalram": info.totalram, "loads": list(info.loads)}


def raw_syscalls():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    answers = {}
    for name, number, args in (
        ("landlock_create_ruleset", 444, (None, 0, 1)),
        ("prctl PR_GET_SECCOMP", 157, (21, 0, 0, 0, 0)),
        ("prctl PR_GET_NO_NEW_PRIVS", 157, (39, 0, 0, 0, 0)),
        ("prctl PR_GET_DUMPABLE", 157, (3, 0, 0, 0, 0)),
        ("getpgid", 121, (0,)),
        ("getsid", 124, (0,)),
        ("getcpu", 309, (None, None, None)),
    ):
        result = libc.syscall(number, *args)
        answers[name] = result if result >= 0 else errno.errorcode.get(ctypes.get_errno())
    return answers


def descriptors():
    answers = {}
    for fd in range(64):
        try:
            found = os.fstat(fd)
        except OSError:
            continue
        kind = (
            "pipe"
            if os.path.stat.S_ISFIFO(found.st_mode)
            else "file"
            if os.path.stat.S_ISREG(found.st_mode)
            else "char"
            if os.path.stat.S_ISCHR(found.st_mode)
            else "other"
        )
        answers[fd] = {"kind": kind, "mode": oct(found.st_mode & 0o7777), "uid": found.st_uid, "nlink": found.st_nlink}
    return answers


def write_attempts():
    def open_for(path, mode):
        with open(path, mode):
            pass

    return {
        "create /": ask(open_for, "/probe.txt", "w"),
        "create in its folder": ask(open_for, os.path.join(os.getcwd(), "probe.txt"), "w"),
        "append to its own file": ask(open_for, __file__, "a"),
        "create in a missing folder": ask(open_for, "/no/such/folder/probe.txt", "w"),
        "mkdir in its folder": ask(os.mkdir, os.path.join(os.getcwd(), "probe")),
    }


def traceback_text():
    try:
        json.loads("{")
    except ValueError:
        raised = traceback.format_exc()
    return {"raised": raised, "stack": "".join(traceback.format_stack())}


def host_state():
    """What the bot host left in memory that a bot can reach: its frames' variables and any
    string in a container, or bytes in a buffer, that looks like a path of the machine."""
    frames = []
    frame = sys._getframe()
    while frame is not None:
        names = {name: repr(value)[:300] for name, value in frame.f_locals.items() if not name.startswith("__")}
        if frame.f_code.co_filename == __file__:
            names = {}  # its own variables hold its own questions
        frames.append({"file": frame.f_code.co_filename, "function": frame.f_code.co_name, "locals": names})
        frame = frame.f_back
    with open(__file__) as handle:
        own_source = handle.read()  # its own lines and TARGETS are in memory too: not the host's doing
    suspicious = set()
    for container in gc.get_objects():
        if isinstance(container, dict):
            values = list(container.values())
        elif isinstance(container, (list, tuple)):
            values = list(container)
        elif isinstance(container, bytearray):
            text = bytes(container).decode("latin-1")
            values = [
                text[max(0, text.find(marker) - 40) : text.find(marker) + 80] for marker in MARKERS if marker in text
            ]
        else:
            continue
        for value in values:
            if isinstance(value, str) and any(marker in value for marker in MARKERS) and value not in own_source:
                suspicious.add(value[:200])
    return {"frames": frames[1:], "suspicious": sorted(suspicious)[:50]}


def identity():
    return {
        "pid": ask(os.getpid),
        "ppid": ask(os.getppid),
        "native thread id": ask(threading.get_native_id),
        "pgrp": ask(os.getpgrp),
        "uid": ask(os.getuid),
        "euid": ask(os.geteuid),
        "gid": ask(os.getgid),
        "egid": ask(os.getegid),
        "groups": ask(os.getgroups),
        "resuid": ask(os.getresuid),
        "resgid": ask(os.getresgid),
        "login": ask(os.getlogin),
        "passwd entry": ask(lambda: list(__import__("pwd").getpwuid(os.getuid()))),
        "umask": ask(os.umask, 0o022),
        "priority": ask(os.getpriority, os.PRIO_PROCESS, 0),
        "scheduler": ask(os.sched_getscheduler, 0),
    }


def machine():
    import platform
    import socket

    answers = {
        "uname": ask(lambda: list(os.uname())),
        "platform.node": ask(platform.node),
        "hostname": ask(socket.gethostname),
        "sysinfo": ask(sysinfo),
        "cpu_count": ask(os.cpu_count),
        "affinity": ask(lambda: sorted(os.sched_getaffinity(0))),
        "statvfs /": ask(lambda: list(os.statvfs("/"))),
        "terminal": ask(lambda: list(os.get_terminal_size())),
        "raw": ask(raw_syscalls),
    }
    for name in ("SC_NPROCESSORS_ONLN", "SC_NPROCESSORS_CONF", "SC_PHYS_PAGES", "SC_AVPHYS_PAGES", "SC_CHILD_MAX"):
        answers[name] = ask(os.sysconf, name)
    return answers


def clocks():
    return {
        "tzname": list(time.tzname),
        "timezone": time.timezone,
        "local zone": time.localtime().tm_zone,
        "monotonic (seconds since the machine booted)": int(time.monotonic()),
        "boottime": ask(lambda: int(time.clock_gettime(time.CLOCK_BOOTTIME))),
        "os.times elapsed": ask(lambda: int(os.times().elapsed)),
    }


LIMITS = (
    "CPU FSIZE DATA STACK CORE RSS NPROC NOFILE MEMLOCK AS LOCKS SIGPENDING MSGQUEUE NICE RTPRIO RTTIME".split()
)  # by number: the resource module has no name for some


def limits():
    return {
        f"RLIMIT_{name}": ask(lambda number=number: list(resource.getrlimit(number)))
        for number, name in enumerate(LIMITS)
    }


def interpreter():
    main = sys.modules.get("__main__")
    return {
        "executable": sys.executable,
        "prefix": [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix],
        "path": list(sys.path),
        "argv": list(sys.argv),
        "orig_argv": list(getattr(sys, "orig_argv", [])),
        "flags": repr(sys.flags),
        "version": sys.version,
        "modules": sorted(name for name in sys.modules if not name.startswith("lineit_user_bot")),
        "main file": getattr(main, "__file__", None),
        "this file": __file__,
        "realpath of this file": os.path.realpath(__file__),
        "cwd": ask(os.getcwd),
        "os module": os.__file__,
        "sysconfig paths": ask(lambda: __import__("sysconfig").get_paths()),
    }


def probe():
    described_interpreter = interpreter()
    before = imports(FORBIDDEN + ALLOWED)
    guessed = guessed_package_folders()
    sys.path.extend(guessed)
    after = imports(FORBIDDEN)
    del sys.path[-len(guessed) :]
    return {
        "interpreter": described_interpreter,
        "imports": before,
        "imports with guessed folders": after,
        "paths": {path: path_answers(path) for path in PATHS},
        "manifest": manifest(),
        "identity": identity(),
        "machine": machine(),
        "clocks": clocks(),
        "limits": limits(),
        "environment": dict(os.environ),
        "descriptors": descriptors(),
        "writes": write_attempts(),
        "traceback": traceback_text(),
        "host state": host_state(),
    }


def act(observation):
    return json.dumps(probe(), sort_keys=True, default=repr)
