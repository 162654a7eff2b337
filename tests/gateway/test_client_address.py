"""The client's address: the peer, or the right-most untrusted hop of X-Forwarded-For behind a trusted proxy."""

from __future__ import annotations

import pytest

from libs.common.client_address import parse_trusted_proxies, resolve_client_address
from libs.common.settings import SettingsError

PROXIES = parse_trusted_proxies("10.0.0.0/8, 192.168.1.1")


@pytest.mark.parametrize(
    ("peer", "forwarded", "proxies", "client"),
    [
        ("203.0.113.5", ["198.51.100.1"], PROXIES, "203.0.113.5"),  # an untrusted peer's header is ignored
        ("10.1.2.3", [], PROXIES, "10.1.2.3"),  # a proxy that forwarded nothing is the client
        ("10.1.2.3", ["198.51.100.1"], PROXIES, "198.51.100.1"),
        ("10.1.2.3", ["6.6.6.6, 198.51.100.1, 10.9.9.9"], PROXIES, "198.51.100.1"),  # spoofed left part skipped
        ("10.1.2.3", ["6.6.6.6", "198.51.100.1"], PROXIES, "198.51.100.1"),  # two headers are one list
        ("192.168.1.1", ["not-an-address"], PROXIES, "192.168.1.1"),
        ("10.1.2.3", ["10.0.0.7, 10.0.0.8"], PROXIES, "10.0.0.7"),  # all trusted: the left-most
        ("10.1.2.3", ["198.51.100.1"], (), "10.1.2.3"),  # no trusted proxies: never the header
        ("2001:db8::1", ["198.51.100.1"], parse_trusted_proxies("2001:db8::/32"), "198.51.100.1"),
        (None, ["198.51.100.1"], PROXIES, "unknown"),
    ],
)
def test_the_client_address(peer, forwarded, proxies, client):
    assert resolve_client_address(peer, forwarded, proxies) == client


def test_a_malformed_trusted_proxy_stops_the_boot():
    with pytest.raises(SettingsError, match="TRUSTED_PROXIES: 'ten.0.0.0/8' is not an address or CIDR block"):
        parse_trusted_proxies("10.0.0.1, ten.0.0.0/8")
    assert parse_trusted_proxies("") == ()
