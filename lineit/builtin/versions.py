"""What names a version of a built-in bot: its file, and the built-in modules it borrows from.

The search bot imports the heuristic's value model (``lineit.builtin.heuristic_bot``), which the
sandbox provides read-only beside the engine, so a change to the heuristic changes how the
search bot plays: its version hash covers every built-in module it imports, directly or not. A
bot that imports none is named by its file's own sha256, as an upload is.

The engine a bot imports is not hashed in: how the engine plays is named by ``RULES_VERSION``,
which a change of the rules bumps and which every match and rating carries (ratings never
compare games of two rules versions), while a faster engine is not a new bot.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

PACKAGE = "lineit.builtin"


def borrowed_modules(path: Path) -> set[str]:
    """The names of the built-in modules that the file at ``path`` imports (``heuristic_bot``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes(), filename=path.name)):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            head, _, rest = name.partition(PACKAGE + ".")
            if not head and rest and (path.parent / f"{rest.split('.')[0]}.py").is_file():
                found.add(rest.split(".")[0])
    return found


def builtin_version_hash(path: Path) -> str:
    """sha256 of the bot file alone when it borrows nothing, else of it and of every built-in
    module it borrows (transitively), each by name, in a fixed order."""
    content = path.read_bytes()
    borrowed: set[str] = set()
    pending = borrowed_modules(path)
    while pending:
        name = pending.pop()
        if name not in borrowed and name != path.stem:
            borrowed.add(name)
            pending |= borrowed_modules(path.parent / f"{name}.py")
    if not borrowed:
        return hashlib.sha256(content).hexdigest()
    digest = hashlib.sha256(content)
    for name in sorted(borrowed):
        module = (path.parent / f"{name}.py").read_bytes()
        digest.update(b"\0%s\0%d\0" % (name.encode(), len(module)) + module)
    return digest.hexdigest()
