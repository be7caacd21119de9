"""The bot's code goes one way: the cache (code_cache.version_source, a version's code as a file
here; version_code, the code itself, checked) reads the storage and knows the models' type only;
the models read neither (every read of code is the cache's, checked), and the storage reaches its model of
copies through Django's app registry, so no module of the three imports another inside a
function to dodge a circle (read from their source: import_graph.py)."""

from __future__ import annotations

from import_graph import ROOT, function_imports_of, imports_of

BOTS = ROOT / "bots"


def test_models_cache_and_storage_import_one_way() -> None:
    assert "bots.code_cache" not in imports_of(BOTS / "models.py")
    assert "bots.storage" in imports_of(BOTS / "code_cache.py")
    assert not {"bots.models", "bots.code_cache"} & imports_of(BOTS / "storage.py")
    assert "bots.models" not in imports_of(BOTS / "code_cache.py")  # its type only, for mypy
    for module in ("models.py", "code_cache.py", "storage.py"):
        assert function_imports_of(BOTS / module) == set(), module
