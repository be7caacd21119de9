"""Small formatting filters for the pages."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from lineit_platform.engine import card_label, colour_of

register = template.Library()


@register.filter
def percent(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "–"
    return f"{value * 100:.{digits}f}%"


@register.filter
def signed(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    return f"{value:+.{digits}f}".replace("-", "−")


@register.filter
def card(value: int) -> SafeString:
    """A card as a small coloured chip (the same markup replay.js draws)."""
    colour = colour_of(value) or "bet"
    return format_html('<span class="card card-{}" title="{}">{}</span>', colour, colour, card_label(value))


@register.simple_tag
def status_badge(status: str) -> SafeString:
    return format_html('<span class="badge badge-{}">{}</span>', status, status)
