"""axe-core (tests/web/vendor/axe-core/axe.min.js, 4.14.1 from npm, MPL-2.0: its LICENSE is beside
it) run on a page in Chromium: ``axe_problems(page)`` lists every critical or serious violation.

Nothing is fetched at run time and the site's Content-Security-Policy is not loosened: the
script is evaluated by Playwright through the DevTools protocol (``page.evaluate``), which the
page's policy does not govern, unlike a ``<script>`` that ``add_script_tag`` would insert (an
inline script: refused by ``script-src 'self'``). The site never serves axe.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
AXE_SOURCE = AXE.read_text(encoding="utf-8")
IMPACTS = ("critical", "serious")
# Violations in markup this project does not write, each with its upstream report: (rule, a CSS
# selector fragment of the element axe names).
KNOWN = {
    # Swagger UI (drf-spectacular-sidecar) puts an operation's path link inside the button that
    # opens it: https://github.com/swagger-api/swagger-ui/issues/9576 (open).
    ("nested-interactive", ".opblock-summary-control"),
}


def axe_results(page: Any) -> list[dict[str, Any]]:
    """Every violation axe finds on the page as it is now (WCAG 2.x A and AA, and best practice)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_SOURCE)
    return page.evaluate(
        """async () => {
            const results = await window.axe.run(document, {resultTypes: ["violations"]});
            return results.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => ({target: n.target.join(" "), html: n.html.slice(0, 160),
                                          summary: n.failureSummary})),
            }));
        }"""
    )


def axe_problems(page: Any) -> list[str]:
    """The critical and serious violations, one line per element, empty when there are none."""
    return [
        f"{v['impact']} {v['id']} ({v['help']}): {node['target']} {node['html']!r} {node['summary']}"
        for v in axe_results(page)
        if v["impact"] in IMPACTS
        for node in v["nodes"]
        if not any(rule == v["id"] and where in node["target"] for rule, where in KNOWN)
    ]


def assert_accessible(page: Any, where: str) -> None:
    problems = axe_problems(page)
    assert problems == [], f"axe on {where}:\n" + "\n".join(problems)
