"""The kit (``lineit``) is pure: every one of its modules imports in a process where Django,
Celery, DRF, the database drivers, Redis and the platform's own packages cannot be imported."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import lineit

FORBIDDEN = (
    "django",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "celery",
    "kombu",
    "psycopg",
    "psycopg2",
    "redis",
    "whitenoise",
    "lineit_platform",
    "bots",
    "tournaments",
    "notifications",
)

SCRIPT = textwrap.dedent(
    """
    import importlib, importlib.abc, pkgutil, sys

    FORBIDDEN = set(sys.argv[1].split(","))

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.partition(".")[0] in FORBIDDEN:
                raise ImportError(f"the kit imported {name}")
            return None

    sys.meta_path.insert(0, Refuse())
    import lineit

    names = ["lineit"]
    for module in pkgutil.walk_packages(lineit.__path__, "lineit."):
        if not module.name.endswith(".__main__"):  # running it is the command itself
            names.append(module.name)
    for name in names:
        importlib.import_module(name)
    leaked = sorted(name for name in sys.modules if name.partition(".")[0] in FORBIDDEN)
    print(" ".join(names))
    print(" ".join(leaked))
    """
)


def test_every_module_of_the_kit_imports_without_django_or_the_platform() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, ",".join(FORBIDDEN)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(lineit.__file__).resolve().parents[1],
    )

    assert done.returncode == 0, done.stderr
    imported, leaked = done.stdout.split("\n")[:2]
    root = Path(lineit.__file__).parent
    sources = {
        ".".join(("lineit", *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        for path in root.rglob("*.py")
        if path.name != "__main__.py"
    }
    assert sources <= set(imported.split()) and len(sources) > 50
    assert leaked == ""
