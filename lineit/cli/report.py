"""The results of a match for people (a table, then the failures) and for programs (JSON)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import lineit
from lineit.botkit.failures import KINDS, STOPPED, Failure
from lineit.botkit.players import IN_PROCESS_TIER
from lineit.botkit.referee import MatchResult
from lineit.botkit.sources import BotSource
from lineit.botkit.summary import EntrantSummary, summarize
from lineit.botkit.untrusted import safe_text
from lineit.engine import RULES_VERSION

KIT_DIR = str(Path(lineit.__file__).resolve().parent)
SUMMARY_FORMAT = "lineit-match-summary"
SUMMARY_FORMAT_VERSION = 2  # 2: win_interval is the Wilson [low, high], not a half-width
STDERR_TAIL_LINES = 15
TAIL_PREFIX = "      | "


def plus_minus(mean: float, half: float) -> str:
    """A mean score and its t interval's half-width: ``12.3 ± 1.4``; ``± n/a`` when the sample
    cannot estimate its spread (one deal group, or no spread at all)."""
    spread = "n/a" if math.isinf(half) or math.isnan(half) else f"{half:.1f}"
    return f"{mean:.1f} ± {spread}"


def rate_range(rate: float, low: float, high: float) -> str:
    """A win rate and its Wilson interval, which is not symmetric: ``25.0% [4.6%, 69.9%]``.

    Rounded outwards, so the shown range always holds the true interval and the rate."""
    low_text = math.floor(low * 1000 + 1e-9) / 10
    high_text = math.ceil(high * 1000 - 1e-9) / 10
    return f"{100 * rate:.1f}% [{low_text:.1f}%, {high_text:.1f}%]"


def milliseconds(value: float) -> str:
    """Three significant digits or so: 0.012, 1.25, 87.3, 1250."""
    if value < 1:
        return f"{value:.3f}"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def describe_match(result: MatchResult) -> str:
    spec = result.spec
    if spec.duplicate_deals:
        dealing = f"duplicate deals: each deck played in {spec.num_players} seat rotations"
    elif spec.rotate_seats:
        dealing = "a new deck every game, seats rotating"
    else:
        dealing = "a new deck every game, fixed seats"
    return (
        f"{spec.num_players} bots, {spec.games} games ({dealing}), ruleset {spec.ruleset}, "
        f"rules {RULES_VERSION}, seed {spec.seed}"
    )


def describe_tier(tier: str) -> str:
    if tier == IN_PROCESS_TIER:
        return "in-process (no sandbox: --in-process runs bots with your own rights; limits on memory are not enforced)"
    return tier


def format_rows(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(w) if c in right else cell.ljust(w) for c, (cell, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines


def summary_rows(summaries: Iterable[EntrantSummary]) -> list[list[str]]:
    rows = [["bot", "games", "mean score (95% CI)", "win rate (95% CI)", "mean rank", "failures", "ms/move mean/max"]]
    for row in summaries:
        rows.append(
            [
                safe_text(row.name),
                str(row.games),
                plus_minus(row.mean_score, row.score_interval),
                rate_range(row.win_rate, row.win_low, row.win_high),
                f"{row.mean_rank:.2f}",
                str(row.failures),
                f"{milliseconds(row.mean_move_ms)} / {milliseconds(row.max_move_ms)}",
            ]
        )
    return rows


def results_table(result: MatchResult, replays: Path | None = None) -> str:
    lines = [f"Match: {describe_match(result)}", ""]
    lines += format_rows(summary_rows(summarize(result)), right={1, 4, 5, 6})
    lines += ["", f"Sandbox tier: {describe_tier(result.tier)}"]
    spec = result.spec
    if spec.duplicate_deals and spec.games % spec.num_players:
        lines.append(
            f"Note: {spec.games} games is not a multiple of {spec.num_players}: the last deck was not played in every seat."
        )
    if replays is not None:
        lines.append(f"Replays: {safe_text(replays)}/ (see them with 'lineit show FILE')")
    if result.failures:
        lines += ["", *failure_lines(result, replays)]
    return "\n".join(lines)


def games_text(games: list[int]) -> str:
    """``0-2, 5, 9-11``: game indices as ranges."""
    spans: list[list[int]] = []
    for game in sorted(games):
        if spans and game == spans[-1][1] + 1:
            spans[-1][1] = game
        else:
            spans.append([game, game])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)
    return ("game " if len(games) == 1 else "games ") + text


def without_platform_frames(lines: list[str]) -> list[str]:
    """A Python traceback without the frames of lineit and of the import machinery, which tell a
    bot author nothing: what is left is the bot's own code and the error."""
    kept = []
    skipping = False
    for line in lines:
        if line.startswith('  File "'):
            path = line[len('  File "') :].split('"', 1)[0]
            skipping = path.startswith(platform_paths())
        elif not line.startswith("    "):
            skipping = False
        if not skipping:
            kept.append(line)
    # A header over no frame of the bot's (a syntax error: only its location is left) says nothing,
    # and Python itself prints a syntax error in a script without one.
    header = "Traceback (most recent call last):"
    return [line for index, line in enumerate(kept) if line != header or _call_frame_follows(kept[index + 1 :])]


def _call_frame_follows(lines: list[str]) -> bool:
    for line in lines:
        if line.startswith('  File "'):
            return ", in " in line
        if not line.startswith("    "):
            return False
    return False


def platform_paths() -> tuple[str, ...]:
    """Where lineit's own code lives: here, and inside the sandbox (the bot host's mount point)."""
    paths = [KIT_DIR + "/", "<frozen "]
    try:
        from lineit.sandbox.launch import SANDBOX_RUNTIME
    except ImportError:
        return tuple(paths)
    return (*paths, SANDBOX_RUNTIME.rstrip("/") + "/")


def replay_name(index: int, games: int) -> str:
    """``game-0007.json``: zero-padded, so the files sort in the order they were played."""
    return f"game-{index:0{max(4, len(str(games - 1)))}d}.json"


def failure_lines(result: MatchResult, replays: Path | None) -> list[str]:
    """Failures grouped by bot, kind and message, each with the bot's stderr tail (its own, locally).

    The name, the message and the tail are the bot's text: shown with safe_text, the tail a line
    at a time under its prefix, so nothing in them acts on the terminal or passes for a line of
    the report."""
    groups: dict[tuple[str, str, str], list[Failure]] = {}
    for game in result.games:
        for failure in game.failures:
            name = result.names[game.seats[failure.seat]]
            groups.setdefault((name, failure.kind, failure.message), []).append(failure)
    lines = [
        f"Failures ({len(result.failures)}), each a forfeited game (the kinds are explained in docs/bot-interface.md):"
    ]
    for (name, kind, message), failures in groups.items():
        first = failures[0]
        where = games_text([f.game for f in failures])
        if first.decision >= 0 and len(failures) == 1:
            where += f", decision {first.decision}"
        lines.append(f"  {safe_text(name)}: {safe_text(kind)} in {where}: {safe_text(message)}")
        if kind not in KINDS or kind == STOPPED:
            continue
        if first.decision >= 0 and replays is not None:
            path = replays / replay_name(first.game, result.spec.games)
            lines.append(f"      see it: lineit show {safe_text(path)} --decision {first.decision}")
        text = first.stderr_tail.strip("\n")
        tail = without_platform_frames(text.split("\n") if text else [])[-STDERR_TAIL_LINES:]
        if tail:
            lines.append("      stderr (last lines):")
            lines += [TAIL_PREFIX + safe_text(line) for line in tail]
    return lines


def finite(value: float) -> float | None:
    """JSON has no infinity: an interval that cannot be estimated is null."""
    return None if math.isinf(value) or math.isnan(value) else value


def json_summary(result: MatchResult, sources: list[BotSource], replays: Path | None) -> dict[str, Any]:
    spec = result.spec
    entrants = []
    for row, source in zip(summarize(result), sources):
        entrants.append(
            {
                "name": row.name,
                "source": "builtin:" + source.path.stem.removesuffix("_bot") if source.builtin else str(source.path),
                "games": row.games,
                "mean_score": row.mean_score,
                "score_interval": finite(row.score_interval),
                "win_rate": row.win_rate,
                "win_interval": [row.win_low, row.win_high],
                "mean_rank": row.mean_rank,
                "failures": row.failures,
                "forfeits": row.forfeits,
                "mean_move_ms": row.mean_move_ms,
                "max_move_ms": row.max_move_ms,
            }
        )
    failures = []
    for game in result.games:
        for failure in game.failures:
            entrant = game.seats[failure.seat]
            failures.append({"entrant": entrant, "name": result.names[entrant], **failure.to_dict()})
    return {
        "format": SUMMARY_FORMAT,
        "format_version": SUMMARY_FORMAT_VERSION,
        "rules_version": RULES_VERSION,
        "match": {
            "num_players": spec.num_players,
            "games": spec.games,
            "ruleset": spec.ruleset,
            "seed": spec.seed,
            "rotate_seats": spec.rotate_seats,
            "duplicate_deals": spec.duplicate_deals,
        },
        "tier": result.tier,
        "limits": result.limits.to_dict(),
        "entrants": entrants,
        "failures": failures,
        "games": [
            {
                "index": game.index,
                "deal": game.deal,
                "deck_seed": game.deck_seed,
                "entrants": list(game.seats),
                "names": game.names,
                "scores": game.scores,
                "ranks": game.ranks,
                "forfeits": game.forfeits,
            }
            for game in result.games
        ],
        "replays": str(replays) if replays is not None else None,
    }
