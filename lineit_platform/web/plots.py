"""Rating history as an inline SVG drawn on the server: no script, no CDN."""

from __future__ import annotations

import math
from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from .selectors import RatingSeries

PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#ca8a04", "#7c3aed", "#0891b2", "#db2777", "#4b5563")
WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 28


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    span = max(high - low, 1.0)
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]


def rating_plot(series: Sequence[RatingSeries], *, title: str) -> SafeString:
    """A line per series: x is the number of rated games, y the rating after them; where the
    series has a whole-history fit, its 95% interval as a bar at the series' end (a dot at the
    fitted rating)."""
    drawn = [item for item in series if len(item.points) > 1]
    if not drawn:
        return mark_safe("")
    values = [value for item in drawn for value in (*item.points, *(item.band[1:] if item.band else ()))]
    low, high = min(values), max(values)
    padding = max((high - low) * 0.08, 10.0)
    low, high = low - padding, high + padding
    longest = max(len(item.points) for item in drawn) - 1

    def x(index: int) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * index / max(longest, 1)

    def y(value: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (high - value) / (high - low)

    grid = format_html_join(
        "",
        '<line x1="{}" x2="{}" y1="{}" y2="{}" class="grid"/><text x="{}" y="{}" class="tick" text-anchor="end">{}</text>',
        (
            (LEFT, WIDTH - RIGHT, f"{y(t):.1f}", f"{y(t):.1f}", LEFT - 6, f"{y(t) + 4:.1f}", f"{t:.0f}")
            for t in _ticks(low, high)
        ),
    )
    lines = format_html_join(
        "",
        '<polyline fill="none" stroke="{}" stroke-width="2" points="{}"><title>{}</title></polyline>',
        (
            (
                PALETTE[number % len(PALETTE)],
                " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(item.points)),
                f"{item.label}: {item.points[-1]:.0f} after {len(item.points) - 1} games",
            )
            for number, item in enumerate(drawn)
        ),
    )
    bands = format_html_join(
        "",
        '<g class="fit-band"><rect x="{}" y="{}" width="8" height="{}" fill="{}" fill-opacity="0.25" stroke="{}"/>'
        '<circle cx="{}" cy="{}" r="3" fill="{}"/><title>{}</title></g>',
        (
            (
                f"{x(len(item.points) - 1) - 4:.1f}",
                f"{y(item.band[2]):.1f}",
                f"{max(y(item.band[1]) - y(item.band[2]), 1.0):.1f}",
                PALETTE[number % len(PALETTE)],
                PALETTE[number % len(PALETTE)],
                f"{x(len(item.points) - 1):.1f}",
                f"{y(item.band[0]):.1f}",
                PALETTE[number % len(PALETTE)],
                f"{item.label}: whole-history fit {item.band[0]:.0f}, 95% interval "
                f"{item.band[1]:.0f} to {item.band[2]:.0f}",
            )
            for number, item in enumerate(drawn)
            if item.band
        ),
    )
    legend = format_html_join(
        "",
        '<li><svg class="swatch" viewBox="0 0 1 1" aria-hidden="true"><rect width="1" height="1" fill="{}"/></svg>'
        '{} <span class="muted">({}, {} games)</span></li>',
        (
            (PALETTE[number % len(PALETTE)], item.label, f"{item.points[-1]:.0f}", len(item.points) - 1)
            for number, item in enumerate(drawn)
        ),
    )
    axis = format_html(
        '<text x="{}" y="{}" class="tick">0</text>'
        '<text x="{}" y="{}" class="tick" text-anchor="middle">rated games</text>'
        '<text x="{}" y="{}" class="tick" text-anchor="end">{}</text>',
        LEFT,
        HEIGHT - 6,
        (LEFT + WIDTH - RIGHT) / 2,
        HEIGHT - 6,
        WIDTH - RIGHT,
        HEIGHT - 6,
        longest,
    )
    return format_html(
        '<figure class="plot"><svg viewBox="0 0 {} {}" role="img" aria-labelledby="plot-title" '
        'preserveAspectRatio="xMidYMid meet"><title id="plot-title">{}</title>{}{}{}</svg>'
        '<figcaption><ul class="legend">{}</ul></figcaption></figure>',
        WIDTH,
        HEIGHT,
        title,
        grid,
        axis,
        format_html("{}{}", lines, bands),
        legend,
    )
