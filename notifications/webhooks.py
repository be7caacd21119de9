"""A webhook: its URL checked (when saved and again when sent) and one JSON POST to it.

The URL is the user's, so the platform must not become their way into its own network: https
only, no credentials in it, only the ports of WEBHOOK_PORTS, and every address its host resolves
to public (lineit_platform/addresses.py: public_address_refusal, the IANA special-purpose
registries, and an IPv6 address that carries an IPv4 one, 6to4, Teredo, NAT64, mapped, judged by
that one). The request then goes to the very address that was checked (no second lookup a DNS
server could answer differently), with TLS verified against the host's name, no redirect
followed, at most RESPONSE_MAX_BYTES of the answer read, and the whole of it (lookup, connect,
TLS, request, status line, headers, body) within WEBHOOK_TIMEOUT_SECONDS: one deadline that every
socket operation obeys (notifications/deadline.py), so a receiver that trickles its answer gets
no more. DEBUG allows http and any address and port; WEBHOOK_ALLOW_LOOPBACK (tests) allows http
and any port to loopback addresses only. Standard library only (http.client, ssl, socket).
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson
from django.conf import settings

from lineit_platform.addresses import public_address_refusal

from .deadline import connect, deadline_tls, resolve, total_deadline

URL_MAX_LENGTH = 2000
RESPONSE_MAX_BYTES = 4096
USER_AGENT = "Line-it-Arena-Webhook/1"
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class WebhookRefused(ValueError):
    """A URL the platform will not post to; the message says why, for the user."""


class WebhookFailed(Exception):
    """A post that did not succeed. ``permanent``: trying again cannot help (a 404, a redirect)."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (``address``) and what to ask for."""

    scheme: str
    host: str
    port: int
    address: str
    path: str


def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return [literal]
    try:
        found = resolve(host, port)
    except TimeoutError:
        raise  # no answer in time: the caller says so (a failure to try again, or a refusal when saved)
    except (socket.gaierror, UnicodeError, OSError):
        raise WebhookRefused(f"the host {host} cannot be resolved") from None
    # An IPv6 address may carry a zone ("fe80::1%eth0"): the address alone is what is checked.
    return list(dict.fromkeys(ipaddress.ip_address(str(entry[4][0]).split("%")[0]) for entry in found))


def webhook_check(url: str) -> Target:
    """The URL's target, or WebhookRefused saying why it cannot be one (resolving its host)."""
    if len(url) > URL_MAX_LENGTH:
        raise WebhookRefused(f"the URL is longer than {URL_MAX_LENGTH} characters")
    if any(ord(character) < 33 or ord(character) == 127 for character in url):
        raise WebhookRefused("the URL must not contain spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise WebhookRefused("the URL cannot be read (its port?)") from None
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise WebhookRefused("the URL must start with https:// and name a host")
    if parts.username is not None or parts.password is not None:
        raise WebhookRefused("the URL must not contain a user name or password")
    host = parts.hostname
    port = port or (443 if parts.scheme == "https" else 80)
    addresses = _resolve(host, port)
    if not addresses:
        raise WebhookRefused(f"the host {host} has no address")
    loopback_allowed = settings.WEBHOOK_ALLOW_LOOPBACK and all(address.is_loopback for address in addresses)
    if not settings.DEBUG and not loopback_allowed:
        if parts.scheme != "https":
            raise WebhookRefused("the URL must start with https://")
        if port not in settings.WEBHOOK_PORTS:
            allowed = ", ".join(str(number) for number in settings.WEBHOOK_PORTS)
            raise WebhookRefused(f"the port must be one of {allowed}, not {port}")
        for address in addresses:
            refusal = public_address_refusal(address)
            if refusal is not None:
                raise WebhookRefused(f"{host} resolves to {address}, {refusal}")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(scheme=parts.scheme, host=host, port=port, address=str(addresses[0]), path=path)


def _family(address: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ipaddress.ip_address(address).version == 6 else socket.AF_INET


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a checked address, the certificate verified against the host's name, every
    socket operation within the deadline."""

    def __init__(self, target: Target, timeout: float) -> None:
        context = deadline_tls(ssl.create_default_context())
        super().__init__(target.host, target.port, timeout=timeout, context=context)
        self.target = target

    def connect(self) -> None:
        sock = connect((self.target.address, self.port), _family(self.target.address), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self.target = target

    def connect(self) -> None:
        self.sock = connect((self.target.address, self.port), _family(self.target.address), self.timeout)


def webhook_post(url: str, payload: dict[str, Any]) -> int:
    """POST ``payload`` as JSON to ``url`` (checked again now, its host looked up again); its
    status when it is 2xx, else WebhookFailed (WebhookRefused for a URL that may no longer be
    posted to). Everything, the lookup included, ends within WEBHOOK_TIMEOUT_SECONDS."""
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    body = orjson.dumps(payload)
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, "Connection": "close"}
    connection: http.client.HTTPConnection | None = None
    with total_deadline(timeout):
        try:
            target = webhook_check(url)
            connection_class = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
            connection = connection_class(target, timeout)
            connection.request("POST", target.path, body=body, headers=headers)
            response = connection.getresponse()
            _read_bounded(response)
        except TimeoutError:
            raise WebhookFailed(f"no answer within {timeout:g} s") from None
        except ssl.SSLError as error:
            raise WebhookFailed(f"TLS failed: {error.reason or error}") from None
        except (OSError, http.client.HTTPException) as error:
            raise WebhookFailed(f"cannot post: {type(error).__name__}: {error}"[:300]) from None
        finally:
            if connection is not None:
                connection.close()
    status = response.status
    if 200 <= status < 300:
        return status
    if 300 <= status < 400:
        raise WebhookFailed(f"answered {status} (a redirect, not followed)", permanent=True)
    # 408 and 429 (and every 5xx) may pass: tried again. Any other 4xx will not.
    permanent = 400 <= status < 500 and status not in (408, 429)
    raise WebhookFailed(f"answered {status} {response.reason}"[:200], permanent=permanent)


def _read_bounded(response: http.client.HTTPResponse) -> None:
    """Read at most RESPONSE_MAX_BYTES of the answer (each read within the deadline)."""
    left = RESPONSE_MAX_BYTES
    while left > 0:
        chunk = response.read1(min(left, 1024))
        if not chunk:
            return
        left -= len(chunk)
