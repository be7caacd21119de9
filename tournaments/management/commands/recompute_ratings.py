from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.services.ratings_recompute import ratings_recompute


class Command(BaseCommand):
    help = "Recompute every rating from stored results in canonical order and compare with the live table."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--write", action="store_true", help="replace the live ratings when they differ")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        outcome = ratings_recompute(write=options["write"])
        elapsed = time.perf_counter() - started
        self.stdout.write(
            f"{len(outcome.table.ratings)} ratings from {outcome.events} rating events in {elapsed:.2f} s"
        )
        if not outcome.mismatches:
            self.stdout.write(self.style.SUCCESS("the live table matches the recomputed one exactly"))
            return
        for line in outcome.mismatches[:20]:
            self.stdout.write(line)
        if options["write"]:
            self.stdout.write(self.style.WARNING(f"{len(outcome.mismatches)} difference(s): live table rewritten"))
        else:
            raise CommandError(f"{len(outcome.mismatches)} difference(s) between the live and recomputed ratings")
