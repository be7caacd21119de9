# Tries to change the engine every bot imports: write, truncate, replace, remove, add a module,
# change modes; and patches its own imported copy (which only it sees). Each change of a file
# must be refused.
import os

import lineit.engine

FOLDER = os.path.dirname(lineit.engine.__file__)


def attempts():
    names = [name for name in os.listdir(FOLDER) if name.endswith((".py", ".so", ".json"))]
    for name in names:
        path = os.path.join(FOLDER, name)
        for mode in ("r+b", "ab", "wb"):
            yield f"open {name} {mode}", lambda path=path, mode=mode: open(path, mode).write(b"# tampered\n")
        yield f"truncate {name}", lambda path=path: os.truncate(path, 0)
        yield f"rename {name}", lambda path=path: os.rename(path, path + ".old")
        yield f"unlink {name}", lambda path=path: os.unlink(path)
        yield f"chmod {name}", lambda path=path: os.chmod(path, 0o666)
    yield "new module", lambda: open(os.path.join(FOLDER, "evil.py"), "w").write("EVIL = 1\n")
    yield "new package", lambda: os.mkdir(os.path.join(os.path.dirname(FOLDER), "evil"))
    yield "replace the package", lambda: os.rename(FOLDER, FOLDER + "-old")


def act(observation):
    lineit.engine.RULES_VERSION = "tampered"  # its own module object: nobody else's
    lineit.engine.determinize = None
    changed = []
    count = 0
    for name, attempt in attempts():
        count += 1
        try:
            attempt()
        except OSError:
            continue
        changed.append(name)
    if changed:
        raise RuntimeError(f"ESCAPED: {', '.join(changed)}")
    raise PermissionError(f"every change to the engine was refused, {count} attempts")
