"""A tournament's bracket as inline SVG drawn on the server: boxes and connecting lines laid out
as a tree, from the bracket data of lineit.formats (``tournament_bracket``), whatever the format
that made it. The template (templates/tournaments/detail.html) draws what ``bracket_drawing``
returns."""

from __future__ import annotations

from typing import Any

# The bracket drawing, in SVG user units (pixels).
BOX_WIDTH = 210
LINE = 18  # one text line of a box
GAP_X = 44
GAP_Y = 14
MARGIN = 8
BAND_GAP = 36
TAP = 44  # a replay link's target, square (WCAG 2.5.5: at least 44 by 44 CSS pixels)
TAP_GAP = 4


def bracket_drawing(
    bracket: dict[str, Any], results: dict[str, dict[int, dict[str, Any]]] | None = None
) -> dict[str, Any]:
    """Boxes and connecting lines of an elimination bracket, laid out as a tree: one column per
    bracket round, the winners' bracket above the losers', the grand final(s) to the right; for
    double elimination each part labelled. ``results``: each slot's result per entrant
    (``tournament_slot_results``), for the scores in the boxes."""
    results = results or {}
    matches = {match["id"]: match for match in bracket["matches"]}
    double = any(match["section"] == "losers" for match in bracket["matches"])
    sources = {key: [_source(slot["from"]) for slot in match["slots"]] for key, match in matches.items()}
    band = {key: 1 if match["section"] == "losers" else 0 for key, match in matches.items()}
    column = _columns(bracket["matches"])
    slots = max(len(match["slots"]) for match in bracket["matches"])
    height = (slots + 1) * LINE + 2 * TAP_GAP + TAP
    order = _tree_order(matches, sources, band, column)
    top: dict[str, float] = {}
    bottoms = [0.0, 0.0]
    for number in (0, 1):
        offset = (MARGIN + (LINE if double else 0)) if number == 0 else bottoms[0] + BAND_GAP
        placed: dict[int, float] = {}
        for key in sorted(
            (k for k in order if band[k] == number and not _is_final(matches[k])), key=column.__getitem__
        ):
            feeders = [top[s] for s in sources[key] if s in top and band[s] == number]
            wanted = sum(feeders) / len(feeders) if feeders else offset
            y = max(wanted, placed.get(column[key], offset))
            top[key] = y
            placed[column[key]] = y + height + GAP_Y
        bottoms[number] = max([offset, *placed.values()])
    for key in sorted((k for k in matches if _is_final(matches[k])), key=column.__getitem__):
        feeders = [top[s] for s in sources[key] if s in top]
        top[key] = sum(feeders) / len(feeders) if feeders else MARGIN
    names = bracket.get("names", {})
    boxes = [_box(matches[key], column[key], top[key], height, names, results.get(key, {})) for key in order]
    bands = []
    if double:
        finals = [key for key in matches if _is_final(matches[key])]
        bands = [
            {"label": "Winners bracket", "x": MARGIN, "y": MARGIN + LINE - 5},
            {"label": "Losers bracket", "x": MARGIN, "y": bottoms[0] + BAND_GAP - 8},
        ]
        if finals:
            first = min(finals, key=column.__getitem__)
            label = "Grand final" if len(finals) == 1 else "Grand finals"
            bands.append({"label": label, "x": MARGIN + column[first] * (BOX_WIDTH + GAP_X), "y": top[first] - 8})
    # Lines inside a band and into the final; a drop from the winners' bracket into the losers' is
    # named in its slot instead (a line across the bands would cross everything).
    lines = [
        _line(column[source], top[source], column[key], top[key], slot, height)
        for key in order
        for slot, source in enumerate(sources[key])
        if source in top and (band[source] == band[key] or _is_final(matches[key]))
    ]
    width = (max(column.values()) + 1) * (BOX_WIDTH + GAP_X) - GAP_X + 2 * MARGIN
    return {
        "width": width,
        "height": max(top.values()) + height + MARGIN,
        "boxes": boxes,
        "lines": lines,
        "bands": bands,
        "box_width": BOX_WIDTH,
        "tap": TAP,
    }


def _source(text: str) -> str:
    """'W1-2 #1' -> 'W1-2'; 'seed 3' -> ''."""
    return "" if text.startswith("seed") else text.split(" #")[0]


def _is_final(match: dict[str, Any]) -> bool:
    return match["section"] == "final" and not match["id"].startswith("W")


def _columns(matches: list[dict[str, Any]]) -> dict[str, int]:
    column = {m["id"]: m["round"] - 1 for m in matches if not _is_final(m)}
    last = max(column.values(), default=-1)
    finals = sorted({m["round"] for m in matches if _is_final(m)})
    for match in matches:
        if _is_final(match):
            column[match["id"]] = last + 1 + finals.index(match["round"])
    return column


def _tree_order(
    matches: dict[str, Any], sources: dict[str, list[str]], band: dict[str, int], column: dict[str, int]
) -> list[str]:
    """Matches so that the two (or more) that feed one match are drawn next to each other: a walk
    back from each band's last round through its feeders, earliest rounds first."""
    seen: list[str] = []

    def visit(key: str) -> None:
        if key in seen:
            return
        for source in sources[key]:
            if source in matches and band[source] == band[key] and not _is_final(matches[source]):
                visit(source)
        seen.append(key)

    for key in sorted(matches, key=lambda k: (-column[k], k)):
        if not _is_final(matches[key]):
            visit(key)
    return seen + sorted(k for k in matches if k not in seen)


def _box(
    match: dict[str, Any],
    column: int,
    top: float,
    height: int,
    names: dict[str, str],
    results: dict[int, dict[str, Any]],
) -> dict[str, Any]:
    x = MARGIN + column * (BOX_WIDTH + GAP_X)
    placed = {entrant: place for place, entrant in enumerate(match["result"] or [], start=1)}
    rows = []
    for number, slot in enumerate(match["slots"]):
        entrant = slot["entrant"]
        label = names.get(str(entrant), "") if entrant is not None else slot["from"]
        result = results.get(entrant) if entrant is not None else None
        rows.append(
            {
                "y": top + (number + 2) * LINE - 5,
                "label": label or "—",
                "from": slot["from"],
                "known": entrant is not None,
                "place": placed.get(entrant) if entrant is not None else None,
                "won": match["result"] is not None and placed.get(entrant) == 1,
                "score": None if result is None else f"{round(result['points'], 2):g}",
                "detail": ""
                if result is None
                else f"{result['points']:.2f} points, mean rank {result['mean_rank']:.2f} over {result['games']} games",
            }
        )
    platform = match.get("match") or {}
    games = platform.get("games", [])
    fits = (BOX_WIDTH - TAP_GAP) // (TAP + TAP_GAP)
    shown = games if len(games) <= fits else games[: fits - 1]
    tap_y = top + height - TAP_GAP - TAP
    return {
        "id": match["id"],
        "status": match["status"],
        "x": x,
        "y": top,
        "height": height,
        "title_y": top + LINE - 5,
        "score_x": x + BOX_WIDTH - 8,
        "tap_y": tap_y,
        "tap_text_y": tap_y + TAP / 2 + 5,
        "rows": rows,
        "match_id": platform.get("id"),
        "match_status": platform.get("status"),
        "games": [
            {"id": game, "x": x + TAP_GAP + index * (TAP + TAP_GAP), "number": index + 1}
            for index, game in enumerate(shown)
        ],
        "more": len(games) - len(shown),
        "more_x": x + TAP_GAP + len(shown) * (TAP + TAP_GAP),
    }


def _line(from_column: int, from_top: float, to_column: int, to_top: float, slot: int, height: int) -> str:
    """An elbow from the right of the feeding box to the left of the slot it fills."""
    x1 = MARGIN + from_column * (BOX_WIDTH + GAP_X) + BOX_WIDTH
    y1 = from_top + height / 2
    x2 = MARGIN + to_column * (BOX_WIDTH + GAP_X)
    y2 = to_top + (slot + 2) * LINE - 9
    middle = x2 - GAP_X / 2
    return f"M{x1:.0f} {y1:.0f} H{middle:.0f} V{y2:.0f} H{x2:.0f}"
