"""The client's address, the one answer every throttle counts by (API and pages alike).

``REMOTE_ADDR`` is the peer that opened the connection. ``X-Forwarded-For`` is a list anyone can
write, so it is read only when that peer is one of our own proxies (``TRUSTED_PROXIES``: addresses
or CIDR networks). Each proxy appends the address it received the request from, so the list is
read from the right, passing over our proxies: the first address that is not one of them is the
client. Whatever lies further left was written by the client itself and is ignored.

An IPv6 client usually holds a whole /64 network, so it is counted by that network: picking a new
address from it for every try would otherwise make a new client each time.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any

from django.conf import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPV6_CLIENT_PREFIX = 64


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def trusted_proxies() -> tuple[IPNetwork, ...]:
    return _networks(tuple(settings.TRUSTED_PROXIES))


def parse_address(text: str) -> IPAddress | None:
    """An address as proxies write it (``1.2.3.4``, ``1.2.3.4:5678``, ``[2001:db8::1]:443``), or None."""
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _is_trusted(address: IPAddress, proxies: tuple[IPNetwork, ...]) -> bool:
    return any(address.version == network.version and address in network for network in proxies)


def client_ip(meta: Any) -> IPAddress | None:
    """The client's address from a request's ``META`` (None when the peer's address is unreadable)."""
    address = parse_address(str(meta.get("REMOTE_ADDR") or ""))
    proxies = trusted_proxies()
    if address is None or not _is_trusted(address, proxies):
        return address
    for hop in reversed(str(meta.get("HTTP_X_FORWARDED_FOR") or "").split(",")):
        forwarded = parse_address(hop)
        if forwarded is None:  # no list, or garbage our proxy did not write: stop at the last sure hop
            break
        address = forwarded
        if not _is_trusted(forwarded, proxies):
            break
    return address


def client_address(request: Any) -> str:
    """The client as throttles count it: its IPv4 address, or its IPv6 /64 network."""
    address = client_ip(request.META)
    if address is None:
        return "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False))
    return str(address)
