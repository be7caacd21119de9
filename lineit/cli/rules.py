"""``lineit rules``: the rules version, the rulesets, and where the rules are written down."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lineit.engine import RULES_CHANGELOG, RULES_VERSION, RULESETS

RULESET_SUMMARIES = {
    "standard": "take a market card, then play a hand card, then close: in this order (the published rules)",
    "bga": "Board Game Arena's order: take, play and close at most once each, in any order",
}

REPOSITORY = Path(__file__).resolve().parents[2]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "rules",
        help="print the rules version and the rulesets",
        description="Print the rules version this engine plays, its rulesets, and where the rules are documented.",
    )
    parser.set_defaults(handler=run)


def where(relative: str) -> str:
    path = (REPOSITORY / relative).resolve()
    return str(path) if path.exists() else relative


def run(args: argparse.Namespace) -> int:
    print(f"Line-it rules version {RULES_VERSION}")
    print()
    print("Rulesets:")
    for name in RULESETS:
        print(f"  {name:<9} {RULESET_SUMMARIES.get(name, '')}")
    print()
    print("Documented in:")
    print(f"  {where('../shared/RULES.md')} (the project's reading of the published rules, with its rulings)")
    print(f"  {where('docs/rules.md')} (the referee's further rulings, R1-R15)")
    print(f"  {where('docs/bot-interface.md')} (observations, actions, limits, failures)")
    print()
    print("Changelog:")
    for version, change in RULES_CHANGELOG:
        print(f"  {version}: {change}")
    return 0
