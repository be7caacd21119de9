"""The repository's docs/*.md on the site: each document a page rendered from its file (so the
two cannot drift), links between documents leading to their pages, no raw HTML let through."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from lineit_platform.web import docs

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db  # the pages read the session and the user, as every page does


def test_every_document_of_the_folder_is_a_page_or_an_example() -> None:
    shown = set(docs.PAGES)
    files = {path.stem for path in (ROOT / "docs").glob("*.md")}
    assert files == shown  # a new document gets a page (or is left out here on purpose)


@pytest.mark.parametrize("name", sorted(docs.PAGES))
def test_each_document_renders_from_its_file(client, name: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("doc", args=[name]))
    assert response.status_code == 200
    html = response.content.decode()
    source = (ROOT / "docs" / f"{name}.md").read_text()
    heading = next(line[2:] for line in source.splitlines() if line.startswith("# "))
    assert "<h1 id=" in html and heading.replace("`", "") in re.sub(r"</?code>", "", html)
    # every link between documents leads to a page of the site, never to a .md file
    links = re.findall(r'<a href="([^"]+)"', html)
    assert not [link for link in links if link.endswith(".md") or ".md#" in link]
    for link in links:
        if link.startswith("/docs/"):
            assert client.get(link.split("#")[0]).status_code == 200, link


def test_a_link_between_documents_keeps_its_anchor_and_a_repository_file_is_named_not_linked(client) -> None:  # type: ignore[no-untyped-def]
    html = client.get(reverse("doc", args=["bot-interface"])).content.decode()
    assert 'href="/docs/rules/"' in html  # [docs/rules.md](rules.md)
    readme_style = docs.DOC_LINK.match("docs/api.md#fetching-replays")
    assert readme_style is not None and readme_style.groups() == ("api", "#fetching-replays")


def test_raw_html_in_a_document_is_shown_as_text(tmp_path, monkeypatch, client) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "rules.md").write_text("# Rules\n\n<script>alert(1)</script> <b onclick=x>b</b>\n")
    monkeypatch.setattr(docs, "DOCS", tmp_path)
    html = client.get(reverse("doc", args=["rules"])).content.decode()
    assert (
        "<script>alert(1)" not in html
        and "&lt;script&gt;" in html
        and "onclick" not in html.split("<article")[1].split("&lt;b")[0]
    )


def test_an_unknown_document_is_not_found(client) -> None:  # type: ignore[no-untyped-def]
    assert client.get("/docs/nothing/").status_code == 404
    assert client.get("/docs/../settings/").status_code == 404


def test_the_index_lists_the_documents_and_the_site_links_to_it(client) -> None:  # type: ignore[no-untyped-def]
    html = client.get(reverse("docs")).content.decode()
    for name in docs.PAGES:
        assert f'href="{reverse("doc", args=[name])}"' in html
    home = client.get(reverse("home")).content.decode()
    for page in ("rules", "bot-interface", "api"):
        assert f'href="{reverse("doc", args=[page])}"' in home
    assert f'href="{reverse("docs")}"' in home  # the header, on every page
