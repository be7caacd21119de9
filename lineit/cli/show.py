"""``lineit show``: a replay turn by turn in the terminal.

A replay file may come from anywhere: every text it carries (the players' names, the rules
version, the failures) is shown with safe_text. The actions need nothing: the engine has checked
each one is a legal action before anything is shown."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lineit.botkit.untrusted import safe_text
from lineit.engine import (
    GameState,
    ReplayError,
    describe,
    new_game,
    ranks_with_forfeits,
    replay_game,
    rounds_in_game,
    verify_replay,
)
from lineit.render import CARD_LEGEND, Style, effects, player_label, position, result_lines

from .errors import CommandError, UsageError
from .replayfile import FIELD_LENGTH, MESSAGE_LENGTH, NAME_LENGTH, load_replay


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "show",
        help="show a replay turn by turn",
        description=(
            "Show a replay in the terminal: the position at the start of every round (market, lines with "
            "their direction and bet, hands, jackpots, scores) and what every action did."
        ),
    )
    parser.add_argument("replay", type=Path, metavar="REPLAY", help="a replay file (JSON)")
    parser.add_argument("--seat", type=int, metavar="K", help="follow seat K: the position before each of its turns")
    parser.add_argument(
        "--decision",
        type=int,
        metavar="N",
        help="only decision N (0-based, as in failure reports): position and choices",
    )
    parser.add_argument("--observation", action="store_true", help="with --decision: also the observation as JSON")
    parser.add_argument("--turns", action="store_true", help="the position before every turn, not only every round")
    colour = parser.add_mutually_exclusive_group()
    colour.add_argument("--no-color", dest="color", action="store_false", default=None, help="never use colour")
    colour.add_argument("--color", dest="color", action="store_true", help="colour even when stdout is no terminal")
    parser.set_defaults(handler=run)


def use_colour(choice: bool | None) -> bool:
    if choice is not None:
        return choice
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def player_names(document: dict[str, Any], num_players: int) -> list[str]:
    players = document.get("players")
    if isinstance(players, list) and len(players) == num_players:
        return [safe_text(name, max_length=NAME_LENGTH) for name in players]
    return [f"seat {seat}" for seat in range(num_players)]


def run(args: argparse.Namespace) -> int:
    document = load_replay(args.replay)
    try:
        final = replay_game(document)
    except ReplayError as error:
        raise CommandError(f"{args.replay}: does not replay: {error}") from None
    except Exception as error:  # a mangled field the engine did not anticipate (as verify says too)
        raise CommandError(f"{args.replay}: malformed replay ({type(error).__name__}: {error})") from None
    actions: list[list[Any]] = document["actions"]
    if args.seat is not None and not 0 <= args.seat < final.num_players:
        raise UsageError(f"--seat {args.seat}: this replay has seats 0 to {final.num_players - 1}")
    if args.decision is not None and not 0 <= args.decision < len(actions):
        raise UsageError(f"--decision {args.decision}: this replay has decisions 0 to {len(actions) - 1}")
    if args.observation and args.decision is None:
        raise UsageError("--observation needs --decision N")
    style = Style(use_colour(args.color))
    names = player_names(document, final.num_players)
    start = new_game(final.num_players, final.ruleset, deck=document["deck"], first_player=document["first_player"])
    show = Show(start, actions, names, style, args.seat)
    lines = header(document, final, names, style, args.seat)
    if args.decision is not None:
        lines += show.decision(args.decision, with_observation=args.observation)
    else:
        lines += show.game(every_turn=args.turns)
        lines += footer(document, final, names, style, args.seat)
    print("\n".join(lines))
    return 0


def header(document: dict[str, Any], final: GameState, names: list[str], style: Style, you: int | None) -> list[str]:
    n = final.num_players
    seed = document.get("seed")
    rules = safe_text(document.get("rules_version"), max_length=FIELD_LENGTH)
    lines = [
        style.bold(f"Line-it replay: {n} players, ruleset {final.ruleset}, rules {rules}")
        + (f", seed {safe_text(seed, max_length=FIELD_LENGTH)}" if seed is not None else "")
        + f", {len(document['actions'])} decisions",
        "Players: " + ", ".join(player_label(names, seat, you, style) for seat in range(n)),
    ]
    verdict = None
    try:
        verdict = verify_replay(document)
    except Exception as error:  # a field the engine does not check, mangled
        why = safe_text(error, max_length=MESSAGE_LENGTH)
        lines.append(f"warning: the recorded result could not be checked ({type(error).__name__}: {why})")
    if verdict is not None and not verdict.ok:
        lines.append(f"warning: {safe_text(verdict.message, max_length=MESSAGE_LENGTH)}")
    lines.append(CARD_LEGEND)
    return lines


def footer(document: dict[str, Any], final: GameState, names: list[str], style: Style, you: int | None) -> list[str]:
    forfeits = [seat for seat in document.get("forfeits") or [] if isinstance(seat, int)]
    scores = final.scores()
    ranks = ranks_with_forfeits(scores, forfeits)
    lines = ["", style.bold("== End of the game =="), *position(final, names, style, you), "", "Result:"]
    lines += result_lines(scores, ranks, forfeits, names)
    meta = document.get("meta")
    failures = meta.get("failures") if isinstance(meta, dict) else None
    if isinstance(failures, list) and failures:
        lines += ["", "Failures:"]
        lines += [failure_line(failure, names) for failure in failures if isinstance(failure, dict)]
    return lines


def failure_line(failure: dict[str, Any], names: list[str]) -> str:
    """``name: kind, decision N``, with the message when the file has one (replays written since
    the message became the bot owner's have none, docs/replay-format.md)."""
    seat, decision, message = failure.get("seat"), failure.get("decision"), failure.get("message")
    who = (
        names[seat]
        if isinstance(seat, int) and 0 <= seat < len(names)
        else f"seat {safe_text(seat, max_length=FIELD_LENGTH)}"
    )
    at = f", decision {decision}" if isinstance(decision, int) and decision >= 0 else ""
    said = f": {safe_text(message, max_length=MESSAGE_LENGTH)}" if isinstance(message, str) and message else ""
    return f"    {who}: {safe_text(failure.get('kind'), max_length=FIELD_LENGTH)}{at}{said}"


class Show:
    """Walks the actions of a replay from its deal, keeping the position before each one."""

    def __init__(
        self, start: GameState, actions: Sequence[Sequence[Any]], names: list[str], style: Style, you: int | None
    ) -> None:
        self.start = start
        self.actions = actions
        self.names = names
        self.style = style
        self.you = you

    def section(self, state: GameState) -> str:
        if state.phase_name == "final":
            return self.style.bold("== Final plays: each player may play hand cards that fit, in two passes ==")
        first = self.names[state.first]
        rounds = rounds_in_game(state.num_players)
        return self.style.bold(f"== Round {state.round + 1} of {rounds}: {first} plays first ==")

    def action_line(self, index: int, seat: int, action: str) -> str:
        who = self.names[seat]
        if seat == self.you:
            who = self.style.bold(who)
        return f"  #{index:<4} {who} {describe(action)}   {self.style.dim('[' + action + ']')}"

    def game(self, *, every_turn: bool) -> list[str]:
        state = self.start.clone()
        lines: list[str] = []
        section = None
        previous_seat = -1
        for index, (seat, action) in enumerate(self.actions):
            now = (state.round, state.phase_name == "final")
            new_turn = now != section or seat != previous_seat or state.phase_name == "final"
            starts_section = now != section
            if starts_section:
                section = now
                lines += ["", self.section(state)]
            if (every_turn and new_turn) or (self.you is None and starts_section) or (self.you == seat and new_turn):
                if not starts_section:
                    lines.append("")
                lines += position(state, self.names, self.style, self.you)
            before = state.clone()
            state.apply(action)
            lines.append(self.action_line(index, seat, action))
            lines += [f"          -> {effect}" for effect in effects(before, action, state, self.names, self.style)]
            previous_seat = seat
        return lines

    def decision(self, number: int, *, with_observation: bool) -> list[str]:
        state = self.start.clone()
        for _seat, action in self.actions[:number]:
            state.apply(action)
        seat, action = self.actions[number]
        phase = state.phase_name
        where = "final plays" if phase == "final" else f"round {state.round + 1} of {rounds_in_game(state.num_players)}"
        lines = [
            "",
            self.style.bold(
                f"Decision {number} (of 0 to {len(self.actions) - 1}): {where}, {self.names[seat]} to decide"
            ),
            self.section(state),
            *position(state, self.names, self.style, self.you if self.you is not None else seat),
            "",
            f"  legal actions: {', '.join(state.legal_actions())}",
        ]
        before = state.clone()
        state.apply(action)
        lines.append(f"  chosen: {action}  ({self.names[seat]} {describe(action)})")
        lines += [f"          -> {effect}" for effect in effects(before, action, state, self.names, self.style)]
        if with_observation:
            observation = before.observation(seat)
            fields = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in observation.items()]
            lines += ["", f"Observation sent to seat {seat} (JSON):", "{", ",\n".join(fields), "}"]
        return lines
