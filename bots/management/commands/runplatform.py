from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from lineit_platform import throttles

# gunicorn's own bounds on the request line and headers (its defaults, said aloud); the body is
# bounded by REQUEST_MAX_BYTES in the application.
GUNICORN_LIMITS = [
    "--limit-request-line",
    "4094",
    "--limit-request-fields",
    "100",
    "--limit-request-field_size",
    "8190",
]


def web_processes() -> list[str]:
    """Several gunicorn processes only when the throttle counts are shared (API_CACHE_URL);
    otherwise one process with threads, whose per-process cache is then the only one."""
    workers = "2" if throttles.counters_shared() else "1"
    return ["--workers", workers, "--threads", "4", "--worker-class", "gthread", *GUNICORN_LIMITS]


class Command(BaseCommand):
    help = (
        "Run the whole platform on one machine: migrate, register the built-in bots, then a web "
        "server, a Celery worker and exactly one beat (the ladder starts playing). Ctrl-C stops all."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=max(1, (os.cpu_count() or 2) - 1))

    def handle(self, *args: Any, **options: Any) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        call_command("register_builtin_bots")
        bin_dir = Path(sys.executable).parent
        celery = str(bin_dir / "celery")
        commands = {
            "web": [str(bin_dir / "gunicorn"), "lineit_platform.wsgi", "--bind", options["bind"], *web_processes()],
            "worker": [
                celery,
                "-A",
                "lineit_platform.celery",
                "worker",
                "-l",
                "info",
                "-c",
                str(options["concurrency"]),
            ],
            "beat": [celery, "-A", "lineit_platform.celery", "beat", "-l", "info"],
        }
        processes = {name: subprocess.Popen(command) for name, command in commands.items()}
        self.stdout.write(
            f"Line-it Arena on http://{options['bind']}/ (admin at /admin/); worker and beat started; Ctrl-C stops them"
        )
        stopping = False

        def stop(*_: Any) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping and all(process.poll() is None for process in processes.values()):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        for name, process in processes.items():
            if process.poll() is None:
                process.terminate()
            else:
                self.stderr.write(f"{name} exited with status {process.returncode}")
        for process in processes.values():
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
