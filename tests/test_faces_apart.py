"""The two faces, the REST API (``lineit_platform/api/``) and the pages (``lineit_platform/web/``),
do not import each other: what both need (account services, selectors) lives below them. Read
from the source of every module of each face (import_graph.py), so no import has to run."""

from __future__ import annotations

import pytest
from import_graph import ROOT, imports_of, module_name, within

PLATFORM = ROOT / "lineit_platform"
FACES = {"api": "lineit_platform.api", "web": "lineit_platform.web"}


@pytest.mark.parametrize(("face", "other"), [("api", "web"), ("web", "api")])
def test_a_face_imports_nothing_of_the_other(face: str, other: str) -> None:
    modules = sorted((PLATFORM / face).rglob("*.py"))
    assert len(modules) > 10  # the face's modules were found
    crossing = {
        module_name(path): sorted(name for name in imports_of(path) if within(name, FACES[other])) for path in modules
    }
    assert {module: names for module, names in crossing.items() if names} == {}


def test_relative_imports_are_resolved_to_their_package() -> None:
    names = imports_of(PLATFORM / "web" / "views" / "account.py")
    assert "lineit_platform.web.forms" in names  # ``from ..forms import ...``
    assert "lineit_platform.web" in names  # ``from .. import health, selectors``
    assert "lineit_platform.web.health" in names
