"""Small formatting filters for the pages."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from lineit.botkit.failures import KINDS
from lineit.botkit.untrusted import safe_text
from lineit.engine import card_label, colour_of

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


@register.filter
def visible(value: object) -> str:
    """A bot's text (a failure message, a rejection, a file name) on one line, its control
    characters and bidi overrides shown escaped (``\\x1b``, ``\\u202e``), as the command line
    shows them. Autoescaping still applies to what it returns."""
    return "" if value is None else safe_text(value)


@register.filter
def visible_lines(value: object) -> str:
    """The same for a block of lines shown in a <pre> (a stderr tail): newlines are kept."""
    return "" if value is None else safe_text(value, keep_newlines=True)


@register.filter
def failure_kind_text(kind: str) -> str:
    """What a failure kind means, for those who may not read the failure's message."""
    return KINDS.get(kind, "the bot failed")


@register.simple_tag
def status_badge(status: str) -> SafeString:
    return format_html('<span class="badge badge-{}">{}</span>', status, status)
