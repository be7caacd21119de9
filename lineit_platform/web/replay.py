"""A replay as the sequence of positions the viewer steps through, computed by the engine.

The server re-runs the replay (``replay_game`` reads every format version through the engine's
``upgrade_replay``, so the viewer follows the format as it evolves) and writes one position per
decision: the position before decision i is ``positions[i]``, and ``positions[-1]`` is the end of
the game. static/web/replay.js fetches it (``/games/<id>/view.json``, or a live game's
``/matches/<id>/live/<index>/view.json``) and only draws it, so what the viewer shows is always
what the engine computed; the page itself carries only the log of decisions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lineit.engine import (
    GameState,
    ReplayError,
    card_label,
    describe,
    new_game,
    replay_game,
    rounds_in_game,
    verify_replay,
)
from lineit.render import Style, bet_text, effects

VIEW_VERSION = 2  # the shape of the document below, read by replay.js
_DIRECTIONS = {1: "up", -1: "down", 0: None}


class _PlainStyle(Style):
    """Effects as plain text with bare card labels (the board shows the colours)."""

    def __init__(self) -> None:
        super().__init__(colour=False)

    def card(self, card: int, *, letter: bool = True) -> str:
        return card_label(card)


def _position(state: GameState) -> dict[str, Any]:
    return {
        "round": state.round + 1,
        "phase": state.phase_name,
        "first": state.first,
        "current": state.current_player,
        "market": state.market.copy(),
        "draw": state.draw_pile_size(),
        "jackpots": [pile.copy() for pile in state.jackpots],
        "legal": state.legal_actions(),
        "players": [
            {
                "line": line.cards.copy(),
                "direction": _DIRECTIONS[line.direction],
                "bet": line.bet or None,
                "bet_text": bet_text(line.bet, line.after_bet) if line.bet else None,
                "after_bet": line.after_bet,
                "colours": line.colours.copy(),
                "hand": hand.copy(),
                "pile": len(pile),
                "tokens": tokens.copy(),
                "score": len(pile) + sum(tokens),
            }
            for line, hand, pile, tokens in zip(state.lines, state.hands, state.piles, state.tokens)
        ],
    }


def replay_view(document: Mapping[str, Any]) -> dict[str, Any]:
    """Every position of a replay, for the viewer. Raises ReplayError when it does not replay."""
    final = replay_game(document)  # checks the whole document first
    names = _names(document, final.num_players)
    state = new_game(final.num_players, final.ruleset, deck=document["deck"], first_player=document["first_player"])
    style = _PlainStyle()
    positions, decisions = [], []
    turn = -1
    previous: tuple[int, int, bool] | None = None
    for seat, action in document["actions"]:
        key = (state.round, seat, state.phase_name == "final")
        if key != previous or state.phase_name == "final":
            turn += 1
        previous = key
        positions.append(_position(state))
        before = state.clone()
        state.apply(action)
        decisions.append(
            {
                "seat": seat,
                "action": action,
                "text": f"{names[seat]} {describe(action)}",
                "effects": effects(before, action, state, names, style),
                "round": before.round + 1,
                "final": before.phase_name == "final",
                "turn": turn,
            }
        )
    positions.append(_position(state))
    verdict = verify_replay(document)
    return {
        "view_version": VIEW_VERSION,
        "format_version": document.get("format_version"),
        "rules_version": document.get("rules_version"),
        "ruleset": final.ruleset,
        "num_players": final.num_players,
        "rounds": rounds_in_game(final.num_players),
        "players": names,
        "scores": final.scores(),
        "ranks": verdict.ranks or final.ranks(),
        "forfeits": list(document.get("forfeits") or []),
        "warning": "" if verdict.ok else verdict.message,
        "claims": list(verdict.claims[1:]),  # each forfeit's cause: the moves cannot show it
        "positions": positions,
        "decisions": decisions,
    }


def _names(document: Mapping[str, Any], seats: int) -> list[str]:
    players = document.get("players")
    if isinstance(players, list) and len(players) == seats:
        return [str(name) for name in players]
    return [f"seat {seat}" for seat in range(seats)]


def replay_sections(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The decisions grouped by round (and the final plays), for the server-rendered log."""
    sections: list[dict[str, Any]] = []
    for index, decision in enumerate(view["decisions"]):
        title = "Final plays" if decision["final"] else f"Round {decision['round']}"
        if not sections or sections[-1]["title"] != title:
            sections.append({"title": title, "decisions": []})
        sections[-1]["decisions"].append({"index": index, **decision})
    return sections


__all__ = ["VIEW_VERSION", "ReplayError", "replay_sections", "replay_view"]
