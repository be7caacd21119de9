"""Real receivers for the notification tests: an SMTP server (aiosmtpd) and an HTTP server (the
standard library's, in a thread) on 127.0.0.1, each keeping what it received; and a stand-in for
the housekeeping worker that takes the notification tasks off the real Redis queue and runs them
in this process (as a worker would, its retries run at once: eagerly)."""

from __future__ import annotations

import email
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message as EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from django.test import TestCase

from bots.code_cache import version_source
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit_platform.celery import app
from notifications import tasks as _tasks  # noqa: F401 (registers them, as the worker does)

TASK_PREFIX = "notifications.tasks."


class _Collector:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.fail_with: str | None = None  # an SMTP reply such as "451 try later"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.fail_with is not None:
            return self.fail_with
        message = email.message_from_bytes(envelope.content)
        message["X-Envelope-To"] = ", ".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"


@dataclass
class SmtpServer:
    host: str
    port: int
    collector: _Collector

    @property
    def messages(self) -> list[EmailMessage]:
        return self.collector.messages


@contextmanager
def smtp_server() -> Iterator[SmtpServer]:
    collector = _Collector()
    with socket.socket() as probe:  # a free port (aiosmtpd's start-up check cannot use port 0)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(collector, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield SmtpServer(host="127.0.0.1", port=port, collector=collector)
    finally:
        controller.stop()


@dataclass
class HttpReceiver:
    """What it answers (``status``, after ``delay`` seconds, ``location`` for a redirect) and
    what it received (``requests``: method, path, headers, JSON body)."""

    status: int = 200
    delay: float = 0.0
    location: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextmanager
def http_receiver() -> Iterator[HttpReceiver]:
    receiver = HttpReceiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            receiver.requests.append(
                {
                    "method": "POST",
                    "path": self.path,
                    "headers": dict(self.headers),
                    "json": json.loads(body),
                    "at": time.monotonic(),
                }
            )
            if receiver.delay:
                time.sleep(receiver.delay)
            self.send_response(receiver.status)
            if receiver.location:
                self.send_header("Location", receiver.location)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


# Where notification tasks go: making them on housekeeping, delivering them on outbound.
QUEUES = ("housekeeping", "outbound")


def notification_queues_drain() -> None:
    """Empty both queues (a test starts with none of its notification tasks left)."""
    with app.connection_for_read() as connection:
        for name in QUEUES:
            queue = connection.SimpleQueue(name)
            while True:
                try:
                    queue.get(block=False).ack()
                except queue.Empty:
                    break
            queue.close()


def take_messages(*names: str) -> list[tuple[str, list[Any], dict[str, Any]]]:
    """Take every message off the queues ``names`` (Redis), each as (task, args, kwargs)."""
    taken = []
    with app.connection_for_read() as connection:
        for name in names:
            queue = connection.SimpleQueue(name)
            while True:
                try:
                    message = queue.get(block=False)
                except queue.Empty:
                    break
                args, kwargs, _embed = message.decode()
                taken.append((message.headers.get("task", ""), args, kwargs))
                message.ack()
            queue.close()
    return taken


def run_notification_tasks(limit: int = 100) -> list[str]:
    """Take the tasks waiting on the real housekeeping and outbound queues (Redis) and run the
    notification ones here, eagerly (a retry runs at once), until none is left, as those
    workers would. Returns the names run; any other task (a ladder tick sent by an activation)
    is taken off too, listed as skipped."""
    ran: list[str] = []
    while len(ran) < limit:
        taken = take_messages(*QUEUES)
        if not taken:
            break
        for name, args, kwargs in taken:
            if name.startswith(TASK_PREFIX):
                with committed():  # what the task sends after its commit is sent
                    app.tasks[name].apply(args=args, kwargs=kwargs)
                ran.append(name.removeprefix(TASK_PREFIX))
            else:
                ran.append(f"skipped {name}")
    return ran


def play_in_process(match: Any) -> Any:
    """Claim a queued match, play it here with in-process players and record it (as
    tests/tournaments/tournament_helpers.py does)."""
    from tournaments.models import Match
    from tournaments.services.matches.results import match_record_result
    from tournaments.services.matches.states import match_claim, match_spec

    claimed = match_claim(match_id=match.pk, worker="tests")
    assert claimed is not None
    versions = [entrant.version for entrant in claimed.entrants.select_related("version__bot").order_by("index")]
    result = run_match(match_spec(claimed), [InProcessPlayer(version_source(version)) for version in versions])
    assert match_record_result(match_id=match.pk, attempt=claimed.attempts, result=result)
    return Match.objects.get(pk=match.pk)


def committed() -> Any:
    """Inside a test's transaction, run what is sent "after commit" when the block ends, as a
    commit would (Django's captureOnCommitCallbacks)."""
    return TestCase.captureOnCommitCallbacks(execute=True)


# --- Slow receivers: a server that trickles its answer ------------------------------------------


@dataclass
class Certificates:
    """A test CA and a certificate it signed for 127.0.0.1: ``ca`` is the file a client trusts
    (SSL_CERT_FILE), ``certificate`` and ``key`` the server's."""

    ca: Path
    certificate: Path
    key: Path


def make_certificates(folder: Path) -> Certificates:
    """Made with the cryptography package: a CA, and a server certificate for IP 127.0.0.1."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Line-it test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    server = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    made = Certificates(ca=folder / "ca.pem", certificate=folder / "server.pem", key=folder / "server.key")
    made.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    made.certificate.write_bytes(server.public_bytes(serialization.Encoding.PEM))
    made.key.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return made


@dataclass
class Trickled:
    """One connection to a trickler: when it was opened (monotonic), the request it read (JSON
    for a webhook), the bytes it trickled back, and when the client hung up (None: still there)."""

    opened_at: float
    request: dict[str, Any] | None = None
    bytes_sent: int = 0
    closed_at: float | None = None


@dataclass
class Trickler:
    """A server that answers one byte every ``interval`` seconds and never finishes: an HTTP
    status line then header lines without end (``tls``: HTTPS with the test certificate, after
    reading the request), or an SMTP greeting (``smtp``: it speaks first). ``connections``: one
    Trickled each, in the order they came."""

    port: int = 0
    interval: float = 0.5
    connections: list[Trickled] = field(default_factory=list)

    def url(self, path: str = "/hook") -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def open_now(self) -> int:
        return sum(1 for connection in self.connections if connection.closed_at is None)


HTTP_TRICKLE = b"HTTP/1.1 200 OK\r\n" + b"X-Slow: still coming\r\n" * 1000
SMTP_TRICKLE = b"220-smtp.test slow greeting\r\n" * 1000


def _read_request(stream: Any) -> dict[str, Any]:
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = stream.recv(4096)
        if not chunk:
            break
        head += chunk
    header, _, body = head.partition(b"\r\n\r\n")
    length = 0
    for line in header.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = stream.recv(4096)
        if not chunk:
            break
        body += chunk
    return {"path": header.split(b" ")[1].decode() if b" " in header else "", "json": json.loads(body or b"null")}


@contextmanager
def trickler(
    *, interval: float = 0.5, certificates: Certificates | None = None, smtp: bool = False
) -> Iterator[Trickler]:
    """The slow receiver, on 127.0.0.1 in threads of this process: HTTPS when ``certificates``
    are given, else (``smtp``) a mail server's greeting."""
    import socketserver
    import ssl

    made = Trickler(interval=interval)
    stopping = threading.Event()
    context = None
    if certificates is not None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(certificates.certificate, certificates.key)

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            connection = Trickled(opened_at=time.monotonic())
            made.connections.append(connection)
            stream = self.request
            try:
                if context is not None:
                    stream = context.wrap_socket(stream, server_side=True)
                if not smtp:
                    connection.request = _read_request(stream)
                for byte in SMTP_TRICKLE if smtp else HTTP_TRICKLE:
                    if stopping.wait(made.interval):
                        break
                    stream.sendall(bytes([byte]))
                    connection.bytes_sent += 1
            except OSError:  # the client hung up (a reset, a broken pipe, TLS closed)
                pass
            finally:
                connection.closed_at = time.monotonic()

    class Server(socketserver.ThreadingTCPServer):
        daemon_threads = True
        allow_reuse_address = True

    server = Server(("127.0.0.1", 0), Handler)
    made.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield made
    finally:
        stopping.set()
        server.shutdown()
        server.server_close()
