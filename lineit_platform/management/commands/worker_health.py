"""``manage.py worker_health NAME``: exit 0 when the worker NAME (bulk@host, or beat@host for the
beat) sent its heartbeat recently, 1 otherwise, saying so in one line: a container's healthcheck,
with any broker (lineit_platform/heartbeats.py). ``--queue Q`` instead: some worker serves Q."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from lineit_platform.heartbeats import worker_alive, workers_by_queue


class Command(BaseCommand):
    help = "Exit 0 when a worker (by name, or any on --queue) sent its heartbeat recently, 1 otherwise."
    requires_system_checks: list[str] = []  # a healthcheck runs every few seconds: no checks

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", nargs="?", help="the worker's node name, e.g. bulk@host")
        parser.add_argument("--queue", help="any worker alive on this queue will do")

    def handle(self, *args: Any, **options: Any) -> None:
        name, queue = options["name"], options["queue"]
        if bool(name) == bool(queue):
            raise CommandError("give a worker's name or --queue, one of the two")
        try:
            if name:
                alive, what = worker_alive(name), f"worker {name}"
            else:
                alive, what = bool(workers_by_queue([queue])[queue]), f"a worker on {queue}"
        except DatabaseError as error:
            raise CommandError(f"cannot read the heartbeats: {error}") from None
        if not alive:
            raise CommandError(f"no recent heartbeat from {what}")
        self.stdout.write(f"{what} is alive")
