"""A total deadline for a conversation with someone else's server (a user's webhook, the mail relay).

A socket timeout bounds one wait, not a conversation: a receiver that sends its status line one
byte every 4 s, under a 5 s timeout, held a worker for a minute. Here the deadline is one instant
on the monotonic clock, and every socket operation (connect, each part of the TLS handshake, each
send and receive) is given only the time left before it, so the whole of it (lookup, connect, TLS,
request, status, headers, body) ends by then, however the other side trickles. The name lookup,
which the C library cannot be told to stop, runs in a thread of a small pool and is abandoned at
the deadline.

``total_deadline(seconds)`` sets it for the code inside (a nested one can only shorten it);
``connect`` opens a socket that obeys it, ``deadline_tls`` makes a TLS context whose sockets obey
it, ``resolve`` looks a name up within it. When it passes, the operation raises TimeoutError.
"""

from __future__ import annotations

import os
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

# A lookup with no deadline of its own (a URL checked when saved) waits at most this long.
LOOKUP_SECONDS = 5.0
# Lookups that hang hold a thread each until the C library gives up: a few at most, the others wait
# for a thread (and their deadline) rather than pile up threads.
LOOKUP_THREADS = 4

_deadline: ContextVar[float | None] = ContextVar("outbound_deadline", default=None)


@contextmanager
def total_deadline(seconds: float) -> Iterator[float]:
    """Everything inside must end within ``seconds`` (or by an enclosing deadline, if sooner)."""
    deadline = time.monotonic() + seconds
    enclosing = _deadline.get()
    if enclosing is not None:
        deadline = min(deadline, enclosing)
    token = _deadline.set(deadline)
    try:
        yield deadline
    finally:
        _deadline.reset(token)


def seconds_left() -> float | None:
    """The time left before the deadline (None: no deadline set); TimeoutError once it passed."""
    deadline = _deadline.get()
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the deadline passed")
    return left


def _arm(sock: socket.socket) -> None:
    left = seconds_left()
    if left is not None:
        sock.settimeout(left)


class DeadlineSocket(socket.socket):
    """A TCP socket whose every wait is bounded by the time left before the deadline."""

    def connect(self, address: Any) -> None:
        _arm(self)
        super().connect(address)

    def recv(self, *args: Any) -> bytes:
        _arm(self)
        return super().recv(*args)

    def recv_into(self, *args: Any) -> int:
        _arm(self)
        return super().recv_into(*args)

    def send(self, *args: Any) -> int:
        _arm(self)
        return super().send(*args)

    def sendall(self, *args: Any) -> None:
        _arm(self)
        super().sendall(*args)


class DeadlineSSLSocket(ssl.SSLSocket):
    """The same for TLS (CPython bounds each TLS call, handshake included, by the socket's timeout)."""

    def do_handshake(self, *args: Any) -> None:
        _arm(self)
        super().do_handshake(*args)

    def read(self, *args: Any) -> Any:
        _arm(self)
        return super().read(*args)

    def write(self, *args: Any) -> int:
        _arm(self)
        return super().write(*args)

    def recv(self, *args: Any) -> bytes:
        _arm(self)
        return super().recv(*args)

    def recv_into(self, *args: Any) -> int:
        _arm(self)
        return super().recv_into(*args)

    def send(self, *args: Any) -> int:
        _arm(self)
        return super().send(*args)

    def sendall(self, *args: Any) -> None:
        _arm(self)
        super().sendall(*args)

    def unwrap(self) -> socket.socket:
        _arm(self)
        return super().unwrap()


def deadline_tls(context: ssl.SSLContext) -> ssl.SSLContext:
    """``context``, whose sockets now obey the deadline (wrap_socket makes DeadlineSSLSocket)."""
    context.sslsocket_class = DeadlineSSLSocket
    return context


def connect(address: tuple[Any, ...], family: socket.AddressFamily, timeout: float | None = None) -> DeadlineSocket:
    """A connected DeadlineSocket to ``address`` (an IP address and a port: no lookup here);
    ``timeout`` bounds each operation when no deadline is set."""
    sock = DeadlineSocket(family, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return sock


_pool: tuple[int, ThreadPoolExecutor] | None = None
_pool_lock = threading.Lock()


def _lookups() -> ThreadPoolExecutor:
    """The lookup threads of this process (a forked worker process makes its own)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), ThreadPoolExecutor(max_workers=LOOKUP_THREADS, thread_name_prefix="lookup"))
        return _pool[1]


def resolve(host: str, port: int) -> list[tuple[Any, ...]]:
    """``socket.getaddrinfo(host, port, type=SOCK_STREAM)``, within the deadline (LOOKUP_SECONDS
    without one): TimeoutError when it takes longer, socket.gaierror when the name has no answer."""
    left = seconds_left()
    wait = LOOKUP_SECONDS if left is None else min(left, LOOKUP_SECONDS)
    future = _lookups().submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        return future.result(timeout=wait)
    except FutureTimeout:
        future.cancel()
        raise TimeoutError(f"no answer for the name {host} within {wait:g} s") from None
