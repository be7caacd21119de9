from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineit_platform import throttles
from lineit_platform.queueing import BULK, HOUSEKEEPING, INTERACTIVE, OUTBOUND, WORKER_QUEUES

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
        "server, the Celery workers (interactive, bulk, housekeeping, outbound) and exactly one beat (the "
        "ladder starts playing). Ctrl-C stops all."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument(
            "--concurrency",
            type=positive,
            default=max(1, (os.cpu_count() or 2) - 1),
            help="matches the bulk worker plays at once (default: the cores less one)",
        )
        parser.add_argument(
            "--interactive-concurrency",
            type=positive,
            default=1,
            help="validations and test matches the interactive worker runs at once (default 1)",
        )
        parser.add_argument(
            "--outbound-concurrency",
            type=positive,
            default=2,
            help="notifications (webhooks, mail) the outbound worker delivers at once (default 2)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        # A busy port is told at once, in one line, before anything starts (CommandError: status 1).
        address = listen_address(options["bind"])
        if address is not None:
            check_free(address, options["bind"])
        # So is a broker or a database out of reach: the platform would start and play nothing.
        check_broker()
        check_database()
        call_command("migrate", interactive=False, verbosity=0)
        call_command("register_builtin_bots")
        bin_dir = Path(sys.executable).parent
        celery = str(bin_dir / "celery")
        commands = {
            "web": [str(bin_dir / "gunicorn"), "lineit_platform.wsgi", "--bind", options["bind"], *web_processes()],
            **{
                f"{role} worker": worker_command(celery, role, concurrency)
                for role, concurrency in (
                    (INTERACTIVE, options["interactive_concurrency"]),
                    (BULK, options["concurrency"]),
                    (HOUSEKEEPING, 1),
                    # The users' servers (webhooks, mail) are talked to here, never by the upkeep.
                    (OUTBOUND, options["outbound_concurrency"]),
                )
            },
            "beat": [celery, "-A", "lineit_platform.celery", "beat", "-l", "info"],
        }
        stopping = False

        def stop(*_: Any) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        processes: dict[str, subprocess.Popen[bytes]] = {}
        try:
            for name, command in commands.items():
                processes[name] = start(name, command)
            wait_until_listening(processes, address, options["bind"], stopping=lambda: stopping)
            if stopping:
                return
            self.stdout.write(
                f"Line-it Arena on http://{options['bind']}/ (admin at /admin/); workers and beat started; "
                "Ctrl-C stops them"
            )
            ended = watch(processes, stopping=lambda: stopping)
            if ended is not None:
                raise CommandError(f"{ended}; the platform is stopped")
        except KeyboardInterrupt:
            pass
        finally:
            stop_all(processes)


def worker_command(celery: str, role: str, concurrency: int) -> list[str]:
    """The Celery worker serving ``role``'s queues (lineit_platform/queueing.py: WORKER_QUEUES),
    named ``role@host`` so that its log lines and Flower tell the workers apart."""
    queues = ",".join(WORKER_QUEUES[role])
    command = [celery, "-A", "lineit_platform.celery", "worker", "-l", "info", "-c", str(concurrency)]
    return [*command, "-Q", queues, "-n", f"{role}@%h"]


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return value


# --- Starting and watching the processes --------------------------------------------------------

START_SECONDS = 60.0  # for the web server to listen (gunicorn imports Django and the app first)


def listen_address(bind: str) -> tuple[socket.AddressFamily, Any] | None:
    """Where gunicorn will listen for ``--bind`` (HOST:PORT, [IPv6]:PORT, HOST, unix:PATH); None
    for a file descriptor (fd://N), which cannot be checked."""
    if bind.startswith("fd://"):
        return None
    if bind.startswith("unix:"):
        return socket.AF_UNIX, bind.removeprefix("unix:")
    host, port = bind, "8000"  # gunicorn's default port
    if bind.startswith("[") and "]" in bind:
        host, _, rest = bind[1:].partition("]")
        port = rest.removeprefix(":") or port
    elif bind.count(":") == 1:
        host, port = bind.split(":")
    if not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise CommandError(f"--bind {bind}: the port must be a number from 1 to 65535")
    try:
        family, _, _, _, address = socket.getaddrinfo(host or "0.0.0.0", int(port), type=socket.SOCK_STREAM)[0]
    except OSError as error:
        raise CommandError(f"--bind {bind}: unknown host {host!r} ({error})") from None
    return family, address


def check_free(address: tuple[socket.AddressFamily, Any], bind: str) -> None:
    """Bind the address as gunicorn will (SO_REUSEADDR), and let it go at once."""
    family, where = address
    if family == socket.AF_UNIX:
        return  # gunicorn replaces a stale socket file; a live one shows when the web server exits
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(where)
        except OSError as error:
            reason = error.strerror or str(error)
            raise CommandError(f"cannot listen on {bind}: {reason} (another server? choose another --bind)") from None


def check_broker() -> None:
    """Connect to the broker once (the worker would retry for ever while the web answers)."""
    from kombu.exceptions import OperationalError

    from lineit_platform.celery import app

    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=5)
    except OperationalError as error:
        raise CommandError(f"cannot reach the broker (CELERY_BROKER_URL): {one_line(error)}") from None


def check_database() -> None:
    from django.db import DatabaseError, connection

    try:
        connection.ensure_connection()
    except DatabaseError as error:
        raise CommandError(f"cannot reach the database (DATABASE_URL): {one_line(error)}") from None


def one_line(error: Exception) -> str:
    """A driver's message on one line (psycopg adds a hint on a line of its own)."""
    return " ".join(str(error).split()) or type(error).__name__


def start(name: str, command: list[str]) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(command)
    except OSError as error:
        raise CommandError(f"cannot start the {name} process ({command[0]}): {error.strerror or error}") from None


def _ended(processes: Mapping[str, subprocess.Popen[bytes]]) -> str | None:
    for name, process in processes.items():
        status = process.poll()
        if status is not None:
            return f"the {name} process exited with status {status} (its output is above)"
    return None


def wait_until_listening(
    processes: Mapping[str, subprocess.Popen[bytes]],
    address: tuple[socket.AddressFamily, Any] | None,
    bind: str,
    *,
    stopping: Callable[[], bool],
    seconds: float = START_SECONDS,
) -> None:
    """Return once the web server accepts connections; CommandError, naming it, if a process
    exits first or the web server does not listen in time."""
    deadline = time.monotonic() + seconds
    while not stopping():
        ended = _ended(processes)
        if ended is not None:
            raise CommandError(f"{ended} while the platform was starting")
        if address is None or _accepts(address):
            return
        if time.monotonic() > deadline:
            raise CommandError(f"the web server did not listen on {bind} within {seconds:g} s")
        time.sleep(0.2)


def _accepts(address: tuple[socket.AddressFamily, Any]) -> bool:
    family, where = address
    if family != socket.AF_UNIX:
        host, port, *rest = where
        if host in ("0.0.0.0", "::"):  # every interface: the loopback one will do
            where = ("127.0.0.1" if family == socket.AF_INET else "::1", port, *rest)
    with socket.socket(family, socket.SOCK_STREAM) as client:
        client.settimeout(1.0)
        try:
            client.connect(where)
        except OSError:
            return False
    return True


def watch(processes: Mapping[str, subprocess.Popen[bytes]], *, stopping: Callable[[], bool]) -> str | None:
    """Wait until asked to stop (None) or until a process ends on its own (why, in words)."""
    while not stopping():
        ended = _ended(processes)
        if ended is not None:
            return ended
        time.sleep(0.5)
    return None


def stop_all(processes: Mapping[str, subprocess.Popen[bytes]]) -> None:
    for process in processes.values():
        if process.poll() is None:
            process.terminate()
    for process in processes.values():
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
