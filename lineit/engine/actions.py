"""Actions are short strings, so a bot can read, log and return them as they are.

=====================  ======================================================
``take C line``        take market card C onto your line (it fits)
``take C hand``        take market card C into your hand (you hold fewer than 2)
``take C forced-close`` take C when it fits neither: your line closes, C starts a new one
``play C``             put card C from your hand on your line (it fits)
``close``              close your line
``pass``               decline to play (or, in the ``bga`` ruleset, end your turn)
=====================  ======================================================

Every possible action string is built once here; the engine looks them up in a dict.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .cards import ALL_CARDS

TAKE: Final = 0
PLAY: Final = 1
CLOSE: Final = 2
PASS: Final = 3

TO_LINE: Final = 0
TO_HAND: Final = 1
TO_NEW_LINE: Final = 2  # forced close: the line closes and the card starts a new one

_DESTINATIONS: Final = ("line", "hand", "forced-close")


class ActionInfo(NamedTuple):
    kind: int
    card: int
    destination: int  # TO_LINE, TO_HAND or TO_NEW_LINE for a take; 0 otherwise


CLOSE_ACTION: Final = "close"
PASS_ACTION: Final = "pass"

# Index = card id (index 0 unused).
TAKE_ACTIONS: Final[tuple[tuple[str, str, str], ...]] = ((("", "", ""),)) + tuple(
    (f"take {c} line", f"take {c} hand", f"take {c} forced-close") for c in ALL_CARDS
)
PLAY_ACTIONS: Final[tuple[str, ...]] = ("",) + tuple(f"play {c}" for c in ALL_CARDS)

ACTIONS: Final[dict[str, ActionInfo]] = {CLOSE_ACTION: ActionInfo(CLOSE, 0, 0), PASS_ACTION: ActionInfo(PASS, 0, 0)}
for _card in ALL_CARDS:
    for _destination in (TO_LINE, TO_HAND, TO_NEW_LINE):
        ACTIONS[TAKE_ACTIONS[_card][_destination]] = ActionInfo(TAKE, _card, _destination)
    ACTIONS[PLAY_ACTIONS[_card]] = ActionInfo(PLAY, _card, 0)


def parse_action(action: object) -> ActionInfo | None:
    """The meaning of an action string, or None when it is not an action at all."""
    if not isinstance(action, str):
        return None
    return ACTIONS.get(action)


def describe(action: str) -> str:
    """A sentence for people: ``take 37 line`` -> ``takes 37 onto the line``."""
    info = ACTIONS.get(action)
    if info is None:
        return repr(action)
    from .cards import card_label

    label = card_label(info.card) if info.card else ""
    if info.kind == TAKE:
        return {
            TO_LINE: f"takes {label} onto the line",
            TO_HAND: f"takes {label} into the hand",
            TO_NEW_LINE: f"takes {label}: it fits nowhere, so the line closes and {label} starts a new one",
        }[info.destination]
    if info.kind == PLAY:
        return f"plays {label} from the hand"
    return "closes the line" if info.kind == CLOSE else "passes"


__all__ = [
    "ACTIONS",
    "CLOSE",
    "CLOSE_ACTION",
    "PASS",
    "PASS_ACTION",
    "PLAY",
    "PLAY_ACTIONS",
    "TAKE",
    "TAKE_ACTIONS",
    "TO_HAND",
    "TO_LINE",
    "TO_NEW_LINE",
    "ActionInfo",
    "describe",
    "parse_action",
]
