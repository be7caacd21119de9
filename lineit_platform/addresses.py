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


# --- Addresses the platform may connect to for a user (webhooks) --------------------------------

# The IANA special-purpose address registries (iana-ipv4-special-registry and
# iana-ipv6-special-registry), every block whose "Globally Reachable" is False or N/A, with the
# other blocks that are no destination on the Internet (multicast, the former site-local). Python's
# ``is_global`` misses some of them, depending on its version (6to4, 3fff::/20, fec0::/10...), so
# the registry is said here, and ``is_global`` is asked as well.
NOT_GLOBAL_NETWORKS: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(block)
    for block in (
        "0.0.0.0/8",  # "this network" (RFC 791)
        "10.0.0.0/8",  # private (RFC 1918)
        "100.64.0.0/10",  # shared address space, carrier-grade NAT (RFC 6598)
        "127.0.0.0/8",  # loopback (RFC 1122)
        "169.254.0.0/16",  # link-local (RFC 3927): cloud metadata lives here
        "172.16.0.0/12",  # private (RFC 1918)
        "192.0.0.0/24",  # IETF protocol assignments (RFC 6890), DS-Lite, NAT64 discovery
        "192.0.2.0/24",  # documentation TEST-NET-1 (RFC 5737)
        "192.88.99.0/24",  # the former 6to4 relay anycast (RFC 7526)
        "192.168.0.0/16",  # private (RFC 1918)
        "198.18.0.0/15",  # benchmarking (RFC 2544)
        "198.51.100.0/24",  # documentation TEST-NET-2 (RFC 5737)
        "203.0.113.0/24",  # documentation TEST-NET-3 (RFC 5737)
        "224.0.0.0/4",  # multicast (RFC 5771)
        "240.0.0.0/4",  # reserved (RFC 1112), the limited broadcast 255.255.255.255 included
        "::/128",  # unspecified (RFC 4291)
        "::1/128",  # loopback (RFC 4291)
        "64:ff9b:1::/48",  # local-use NAT64 (RFC 8215): the operator's own translator
        "100::/64",  # discard-only (RFC 6666)
        "100:0:0:1::/64",  # dummy IPv6 prefix (RFC 9780)
        "2001::/23",  # IETF protocol assignments (RFC 2928): Teredo, benchmarking, ORCHID...
        "2001:db8::/32",  # documentation (RFC 3849)
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # segment routing SIDs (RFC 9602)
        "fc00::/7",  # unique local (RFC 4193)
        "fe80::/10",  # link-local (RFC 4291)
        "fec0::/10",  # the former site-local (RFC 3879)
        "ff00::/8",  # multicast (RFC 4291)
    )
)
# IPv6 forms that carry an IPv4 address, and where in them: what such an address reaches is that
# IPv4 address (through a translator or a tunnel), so it is judged by it.
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052: the IPv4 address in the last 32 bits
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")  # RFC 4291, deprecated: the last 32 bits
IPV4_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")  # RFC 2765 (SIIT): the last 32 bits


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[tuple[str, ipaddress.IPv4Address]]:
    """The IPv4 addresses an IPv6 address carries, each with the name of its form: mapped
    (::ffff:a.b.c.d), compatible (::a.b.c.d), translated (::ffff:0:a.b.c.d), 6to4 (2002::/16),
    Teredo (2001::/32, its server and its client) and NAT64 (64:ff9b::/96)."""
    found: list[tuple[str, ipaddress.IPv4Address]] = []
    last_32 = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.ipv4_mapped is not None:
        found.append(("IPv4-mapped", address.ipv4_mapped))
    elif address in IPV4_TRANSLATED:
        found.append(("IPv4-translated", last_32))
    elif address in IPV4_COMPATIBLE and int(address) > 1:  # :: and ::1 are themselves
        found.append(("IPv4-compatible", last_32))
    if address.sixtofour is not None:
        found.append(("6to4", address.sixtofour))
    if address.teredo is not None:
        server, client = address.teredo
        found += [("Teredo server", server), ("Teredo client", client)]
    if address in NAT64:
        found.append(("NAT64", last_32))
    return found


def _not_global(address: IPAddress) -> bool:
    return (
        not address.is_global
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or any(address.version == network.version and address in network for network in NOT_GLOBAL_NETWORKS)
    )


def public_address_refusal(address: IPAddress) -> str | None:
    """Why the platform must not connect to ``address`` for a user, as words that follow the
    address ("which is not a public address", "the 6to4 form of 127.0.0.1, which is not a public
    address"), or None when it is a public address. An IPv6 address that carries an IPv4 one is judged by the
    IPv4 one (a translator or tunnel would take the connection there)."""
    if isinstance(address, ipaddress.IPv6Address):
        carried = embedded_ipv4(address)
        for form, inner in carried:
            if _not_global(inner):
                return f"the {form} form of {inner}, which is not a public address"
        if address.ipv4_mapped is not None or (carried and address in NAT64):
            return None  # judged by the IPv4 address it carries, which is public
    if _not_global(address):
        return "which is not a public address"
    return None
