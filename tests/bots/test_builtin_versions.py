"""A built-in bot's version follows the built-in modules it borrows: the search bot imports the
heuristic's value model, so a change to the heuristic registers a new search version."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import bots.services
from bots.code_cache import BotCodeUnavailable, version_code
from bots.models import BotVersion
from bots.services import builtin_bots_register
from bots.storage import bot_code_storage
from lineit.botkit.sources import BUILTIN_DIR


def stored(version: BotVersion) -> bytes:
    with bot_code_storage().open(version.path, "rb") as handle:
        return bytes(handle.read())


@pytest.fixture
def builtin_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "builtin"
    shutil.copytree(BUILTIN_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(bots.services, "BUILTIN_DIR", copy)
    return copy


def test_a_change_to_the_heuristic_gives_search_a_new_version(db, builtin_copy: Path) -> None:  # type: ignore[no-untyped-def]
    # Given the search bot registered
    (first,) = builtin_bots_register(names=("search",))
    # When a weight of the heuristic's model changes (search_bot.py itself does not)
    heuristic = builtin_copy / "heuristic_bot.py"
    heuristic.write_text(heuristic.read_text().replace("HAND_FIT_VALUE = 0.7", "HAND_FIT_VALUE = 0.8"))
    (second,) = builtin_bots_register(names=("search",))
    # Then search is at its next version, the same file stored, and the first is retired
    assert second.number == first.number + 1 and second.status == BotVersion.Status.ACTIVE
    assert stored(second) == stored(first) == (builtin_copy / "search_bot.py").read_bytes()
    # This host ships neither version (its heuristic is the original): their code is not served as theirs.
    with pytest.raises(BotCodeUnavailable, match="this host ships another version of the built-in bot"):
        version_code(second)
    first.refresh_from_db()
    assert first.status == BotVersion.Status.RETIRED
    # And registering again changes nothing
    assert [v.pk for v in builtin_bots_register(names=("search",))] == [second.pk]
