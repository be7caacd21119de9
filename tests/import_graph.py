"""What a module imports, read from its source (every import statement, at the top or inside a
function, relative ones resolved): the layering tests check the house's arrows without running
an import."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_name(path: Path) -> str:
    parts = path.resolve().relative_to(ROOT).with_suffix("").parts
    return ".".join(parts).removesuffix(".__init__")


def imports_of(path: Path, *, inside_functions: bool = True) -> set[str]:
    """Every module ``path`` imports, by its full name (for ``from x import y``, both x and x.y:
    y may be a module). Without ``inside_functions``, only the imports a module makes when it is
    imported (at its top level, in its classes, or under ``if``), not those its functions make
    when they run. Imports under ``if TYPE_CHECKING:`` are never counted: they never run."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _statements(ast.parse(path.read_text(), str(path)), inside_functions):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names)
    return found


def function_imports_of(path: Path) -> set[str]:
    """The modules ``path`` imports only inside its functions."""
    return imports_of(path) - imports_of(path, inside_functions=False)


def _statements(node: ast.AST, inside_functions: bool) -> list[ast.AST]:
    found: list[ast.AST] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child.test):
            found += [
                statement for other in child.orelse for statement in [other, *_statements(other, inside_functions)]
            ]
            continue
        if not inside_functions and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        found.append(child)
        found += _statements(child, inside_functions)
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(f"{package}.")
