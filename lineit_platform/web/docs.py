"""The project's documentation on the site: docs/*.md of the repository rendered as pages at
/docs/<name>/, so the site and the repository cannot drift apart.

Rendered with markdown-it-py (CommonMark, with tables), raw HTML off: the files are the
project's own, but the site's Content-Security-Policy allows no inline style or script, and
nothing in a document needs HTML. A link to another document (``rules.md``,
``docs/api.md#fetching-replays``) becomes a link to its page; a link to a file of the repository
(``lineit/engine/``) stays text, in code. ``urlpatterns`` is included by the project's urls.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path, reverse

DOCS = Path(settings.BASE_DIR) / "docs"

# The documents the site shows, in the order of the index, with the line the index gives each.
PAGES: dict[str, str] = {
    "rules": "The rules of Line-it, with every ruling of the referee.",
    "bot-interface": "Writing a bot: the interface, the observation, limits, failures, the sandbox, the kit.",
    "bots": "The built-in bots, their strategies and how strong they are.",
    "api": "The REST API: finding ids, creating a bot, uploading versions, requesting matches, replays.",
    "tournaments": "Tournament formats: round robin, Swiss, single and double elimination.",
    "tournaments-platform": "Tournaments on the platform: scheduled and recurring ones.",
    "replay-format": "The replay format and what verification checks.",
    "sandbox": "The sandbox bots run in, and why.",
    "platform": "Running the platform: queues, ratings, placement, notifications, settings.",
    "deployment": "Operating it: health, metrics, logs, Sentry, Flower, compose, the image, worker profiles.",
    "architecture": "How the code is laid out, and one upload's way to a rating change.",
}
NAME = re.compile(r"[a-z][a-z-]{0,40}")
# A link to another document: docs/api.md, ./api.md, api.md#anchor, ../docs/rules.md
DOC_LINK = re.compile(r"^(?:\.{1,2}/)*(?:docs/)?([a-z][a-z-]*)\.md(#[\w-]*)?$")


@functools.lru_cache(maxsize=64)
def _rendered(name: str, modified: float) -> tuple[str, str]:
    """The page's title (its first heading) and HTML, cached until the file changes."""
    from markdown_it import MarkdownIt

    text = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = markdown.parse(text)
    title = name
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1" and index + 1 < len(tokens):
            title = tokens[index + 1].content
            break
    for index, token in enumerate(tokens):
        for child in token.children or ():
            if child.type == "link_open":
                _relink(child)
        if token.type == "heading_open" and index + 1 < len(tokens):
            token.attrSet("id", _anchor(tokens[index + 1].content))
    html = markdown.renderer.render(tokens, markdown.options, {})
    # A code block or a table wider than the page scrolls: reachable by keyboard too (raw HTML is
    # off, so every "<pre>" and "<table>" here is the renderer's own).
    return title, html.replace("<pre>", '<pre tabindex="0">').replace("<table>", '<table tabindex="0">')


def _relink(token: Any) -> None:
    href = str(token.attrGet("href") or "")
    found = DOC_LINK.match(href)
    if found and found.group(1) in PAGES:
        token.attrSet("href", reverse("doc", args=[found.group(1)]) + (found.group(2) or ""))
    elif not re.match(r"^(https?:|mailto:|#|/)", href):
        # a file of the repository: no page shows it; point to the documentation's index instead
        token.attrSet("href", reverse("docs") + "#repository-files")
        token.attrSet("title", f"{href} (a file of the repository)")


def _anchor(text: str) -> str:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def doc(request: HttpRequest, name: str) -> HttpResponse:
    if name not in PAGES or not NAME.fullmatch(name):
        raise Http404(f"no document {name!r}")
    source = DOCS / f"{name}.md"
    try:
        modified = source.stat().st_mtime
    except OSError as error:
        raise Http404(f"the document {name!r} is not installed here") from error
    title, html = _rendered(name, modified)
    return render(request, "web/doc.html", {"name": name, "title": title, "html": html, "pages": PAGES})


def docs_index(request: HttpRequest) -> HttpResponse:
    available = {name: line for name, line in PAGES.items() if (DOCS / f"{name}.md").exists()}
    return render(request, "web/docs_index.html", {"pages": available})


urlpatterns: list[URLPattern] = [
    path("docs/", docs_index, name="docs"),
    path("docs/<slug:name>/", doc, name="doc"),
]
