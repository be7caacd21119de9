"""The two faces, the REST API (``lineit_platform/api/``) and the pages (``lineit_platform/web/``),
do not import each other: what both need (account services, selectors) lives below them. Read
from the source of every module of each face (every import statement, at the top or inside a
function, relative ones resolved), so no import has to run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import lineit_platform

PLATFORM = Path(lineit_platform.__file__).resolve().parent
FACES = {"api": "lineit_platform.api", "web": "lineit_platform.web"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PLATFORM.parent).with_suffix("").parts
    return ".".join(parts).removesuffix(".__init__")


def imported_names(path: Path) -> set[str]:
    """Every module ``path`` imports, by its full name (for ``from x import y``, both x and x.y:
    y may be a module)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names)
    return found


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(f"{package}.")


@pytest.mark.parametrize(("face", "other"), [("api", "web"), ("web", "api")])
def test_a_face_imports_nothing_of_the_other(face: str, other: str) -> None:
    modules = sorted((PLATFORM / face).rglob("*.py"))
    assert len(modules) > 10  # the face's modules were found
    crossing = {
        module_name(path): sorted(name for name in imported_names(path) if within(name, FACES[other]))
        for path in modules
    }
    assert {module: names for module, names in crossing.items() if names} == {}


def test_relative_imports_are_resolved_to_their_package() -> None:
    views = PLATFORM / "web" / "views" / "account.py"
    names = imported_names(views)
    assert "lineit_platform.web.forms" in names  # ``from ..forms import ...``
    assert "lineit_platform.web" in names  # ``from .. import health, selectors``
    assert "lineit_platform.web.health" in names
