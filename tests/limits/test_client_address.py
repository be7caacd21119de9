"""Whose request is it? The client address every throttle counts by: X-Forwarded-For is believed
only from our own proxies, read from the right. Pure: no database."""

from __future__ import annotations

import pytest
from django.test import RequestFactory, override_settings

from lineit_platform.addresses import client_address

PROXIES = ["10.0.0.0/8", "192.168.1.7"]


def address_of(remote: str, forwarded: str | None = None) -> str:
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return client_address(RequestFactory().get("/", **extra))


@pytest.mark.parametrize("forwarded", ["1.2.3.4", "5.6.7.8, 9.9.9.9", "garbage", ""])
def test_without_trusted_proxies_the_header_is_ignored(forwarded: str) -> None:
    # A client writes any X-Forwarded-For it likes: each try would otherwise be a new client.
    assert address_of("203.0.113.9", forwarded) == "203.0.113.9"


@override_settings(TRUSTED_PROXIES=PROXIES)
def test_a_peer_that_is_not_our_proxy_is_the_client_whatever_it_forwards() -> None:
    assert address_of("203.0.113.9", "10.0.0.1, 1.2.3.4") == "203.0.113.9"


@override_settings(TRUSTED_PROXIES=PROXIES)
@pytest.mark.parametrize(
    ("forwarded", "client"),
    [
        ("198.51.100.20", "198.51.100.20"),  # our proxy appended its peer
        ("1.1.1.1, 198.51.100.20", "198.51.100.20"),  # the client wrote 1.1.1.1 itself
        ("6.6.6.6, 7.7.7.7, 198.51.100.20", "198.51.100.20"),
        ("198.51.100.20, 10.2.3.4", "198.51.100.20"),  # through two of our proxies
        ("1.1.1.1, 198.51.100.20, 192.168.1.7, 10.9.9.9", "198.51.100.20"),
        ("198.51.100.20:51234", "198.51.100.20"),  # with a port
        ("::ffff:198.51.100.20", "198.51.100.20"),  # IPv4 written as IPv6
    ],
)
def test_behind_our_proxies_the_right_most_untrusted_address_is_the_client(forwarded: str, client: str) -> None:
    assert address_of("10.0.0.5", forwarded) == client


@override_settings(TRUSTED_PROXIES=PROXIES)
def test_a_spoofed_left_part_changes_nothing() -> None:
    seen = {address_of("10.0.0.5", f"{n}.{n}.{n}.{n}, 198.51.100.20") for n in range(1, 50)}
    assert seen == {"198.51.100.20"}


@override_settings(TRUSTED_PROXIES=PROXIES)
@pytest.mark.parametrize("forwarded", [None, "", "not-an-address", "1.2.3.4, nonsense"])
def test_an_unreadable_list_leaves_the_last_address_we_are_sure_of(forwarded: str | None) -> None:
    # Nothing readable to the right of our proxy: all such requests count as the proxy's, never
    # as a new client each.
    assert address_of("10.0.0.5", forwarded) == "10.0.0.5"


@override_settings(TRUSTED_PROXIES=PROXIES)
def test_only_proxies_all_the_way_gives_the_left_most() -> None:
    assert address_of("10.0.0.5", "10.1.1.1, 10.2.2.2") == "10.1.1.1"


@override_settings(TRUSTED_PROXIES=["2001:db8:ffff::/48"])
def test_an_ipv6_client_is_counted_by_its_64_network() -> None:
    # A host usually holds a whole /64: a new address from it for every try is still one client.
    addresses = {address_of(f"2001:db8:1:2::{n:x}") for n in range(1, 200)}
    assert addresses == {"2001:db8:1:2::/64"}
    assert address_of("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert address_of("2001:db8:ffff::1", "[2001:db8:5:6::7]:443") == "2001:db8:5:6::/64"


def test_an_unreadable_peer_is_one_unknown_client() -> None:
    assert address_of("") == address_of("nonsense") == "unknown"
