"""Names that look alike: one key for every name a reader could take for another.

``аlice`` (a Cyrillic а), ``alicе`` (a Cyrillic е), ``aIice`` (a capital i) and ``Alice`` all read
as ``alice``; a user or a bot could pass for another under such a name. Their key is the same:
``name_key`` is the sha256 of the Unicode skeleton (UTS #39, section 4: decompose, map each
character to its prototype in Unicode's confusables table, decompose again) of the name, folded
to one case and taken to its skeleton again; ``folded_key`` folds the case first (``ALICE``).
The usernames (both keys: lineit_platform.models.UsernameKey) and the bot names (name_key:
bots.models.Bot.name_key, beside their unique lower case) are unique by them in the database, so
no face, and no two requests at once, can make a look-alike.

The table is Unicode's confusables.txt as the confusable_homoglyphs package ships it (a
maintained package; its confusables.json lists each line "source -> prototype" in both
directions). In confusables.txt a source has exactly one prototype and no prototype is itself a
source: so a character with several entries is a prototype (it stays itself), one with a single
entry is the source of that entry, unless the two list only each other (one source, one
prototype): then both take the smaller, which makes them equal all the same. A stored key follows
the table it was made with: a release of the package that changes a prototype leaves the keys
made before as they were.
"""

from __future__ import annotations

import functools
import hashlib
import unicodedata

from confusable_homoglyphs.confusables import confusables_data

# confusables.json wraps right-to-left characters in LEFT-TO-RIGHT MARKs for display.
_MARK = "\u200e"


def _clean(text: str) -> str:
    return text.replace(_MARK, "")


@functools.cache
def prototypes() -> dict[str, str]:
    """Each confusable character that is not a prototype, with its prototype (one or more
    characters)."""
    entries = {_clean(key): [_clean(entry["c"]) for entry in value] for key, value in confusables_data.items()}
    table: dict[str, str] = {}
    for character, listed in entries.items():
        if len(character) != 1 or len(listed) != 1:
            continue  # a sequence, or a prototype (several sources map to it)
        (target,) = listed
        if len(target) == 1 and entries.get(target) == [character]:  # one source, one prototype
            table[character] = min(character, target)
        else:
            table[character] = target
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text``: NFD, format characters (zero widths, direction marks)
    dropped, each character replaced by its prototype, NFD again."""
    table = prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(
        table.get(character, character) for character in decomposed if unicodedata.category(character) != "Cf"
    )
    return unicodedata.normalize("NFD", mapped)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def name_key(name: str) -> str:
    """The key two names share when a reader could take one for the other: the skeleton, folded
    to one case, taken to its skeleton again (``aIice``, ``аlice``, ``a1ice``, ``Alice`` and
    ``alice`` share it; ``rand0m`` and ``RANDOM`` too)."""
    return _digest(skeleton(skeleton(name).casefold()))


def folded_key(name: str) -> str:
    """The key of the name folded to one case first: ``ALICE`` and ``alice`` share it (their
    name_key differs: the capital I's prototype is l). Names unique in any case keep both."""
    return _digest(skeleton(name.casefold()))
