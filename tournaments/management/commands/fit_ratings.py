from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineit.engine import RULES_VERSION, RULESETS
from lineit.stats.plackett_luce import PRIOR_ELO
from lineit.stats.plackett_luce_model import FitError
from tournaments.services.ratings_fit import ratings_fit, ratings_fit_all


class Command(BaseCommand):
    help = "Fit the whole-history ratings (Plackett-Luce, with 95% intervals) now, beside the live Elo."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--ruleset", choices=RULESETS, help="one ruleset (default: every rated one)")
        parser.add_argument("--rules-version", default=RULES_VERSION, help="with --ruleset (default: the current)")
        parser.add_argument("--prior-elo", type=float, default=PRIOR_ELO, help="the prior's width in Elo points")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            if options["ruleset"]:
                runs = [
                    ratings_fit(
                        ruleset=options["ruleset"],
                        rules_version=options["rules_version"],
                        prior_elo=options["prior_elo"],
                    )
                ]
            else:
                runs = ratings_fit_all(prior_elo=options["prior_elo"])
        except FitError as error:
            raise CommandError(str(error)) from None
        if not runs:
            self.stdout.write("no rated games yet: nothing to fit")
        for run in runs:
            self.stdout.write(
                f"{run.ruleset} {run.rules_version}: {run.versions} versions from {run.games} games "
                f"in {run.seconds:.2f} s ({run.interval} intervals; {run.disconnected} not connected)"
            )
