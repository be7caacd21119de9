"""``lineit rules``: the whole rules of Line-it, as this kit plays them; ``--summary``: the rules
version, the rulesets and the changelog.

The rules are the package's own resource, ``lineit/rules.md`` (in the repository a link to
``docs/rules.md``, copied into the wheel), so an installed kit prints them without a checkout."""

from __future__ import annotations

import argparse
from importlib import resources
from typing import Any

from lineit.engine.rules import RULES_CHANGELOG, RULES_VERSION, RULESETS

from .errors import CommandError

RULES_RESOURCE = "rules.md"

RULESET_SUMMARIES = {
    "standard": "take a market card, then play a hand card, then close: in this order (the published rules)",
    "bga": "Board Game Arena's order: take, play and close at most once each, in any order",
}


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "rules",
        help="print the rules of Line-it (--summary: the rules version and the rulesets)",
        description=(
            "Print the whole rules of Line-it as this engine plays them, with every ruling (the text of "
            "docs/rules.md), or with --summary the rules version, the rulesets and the changelog."
        ),
    )
    parser.add_argument(
        "--summary", action="store_true", help="print only the rules version, the rulesets and the changelog"
    )
    parser.set_defaults(handler=run)


def rules_text() -> str:
    """The rules, read from the installed package (the same text as docs/rules.md)."""
    try:
        return resources.files("lineit").joinpath(RULES_RESOURCE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(
            f"the rules are missing from this installation of lineit ({RULES_RESOURCE}: {error})"
        ) from None


def summary() -> str:
    lines = [f"Line-it rules version {RULES_VERSION}", "", "Rulesets:"]
    lines += [f"  {name:<9} {RULESET_SUMMARIES.get(name, '')}" for name in RULESETS]
    lines += [
        "",
        "Documented in:",
        "  lineit rules (the whole rules with every ruling, R1-R15; docs/rules.md in the repository)",
        "  docs/bot-interface.md in the repository (observations, actions, limits, failures)",
        "",
        "Changelog:",
    ]
    lines += [f"  {version}: {change}" for version, change in RULES_CHANGELOG]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.summary:
        print(summary())
    else:
        print(rules_text(), end="")
    return 0
