from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from bots.services import builtin_bots_register


class Command(BaseCommand):
    help = "Register the built-in reference bots for the system user (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        for version in builtin_bots_register():
            self.stdout.write(f"{version.label}: {version.status}")
