"""The outbound address policy, form by form: every encoding of an internal address is refused,
public addresses (including their translated forms) pass."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

import pytest
from aiohttp.abc import AbstractResolver

from libs.common.address_policy import (
    RefusedAddress,
    SafeResolver,
    allowed,
    check_host,
    is_internal,
    literal_address,
    url_problem,
)

LOOPBACK_ALLOWED = (ipaddress.ip_network("127.0.0.0/8"),)

INTERNAL = [
    ("127.0.0.1", "IPv4 loopback"),
    ("10.0.0.7", "RFC 1918"),
    ("172.16.5.4", "RFC 1918"),
    ("192.168.1.1", "RFC 1918"),
    ("169.254.169.254", "link-local (cloud metadata)"),
    ("100.64.0.1", "carrier-grade NAT"),
    ("0.0.0.0", "unspecified"),
    ("224.0.0.1", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "broadcast"),
    ("198.18.0.1", "benchmarking"),
    ("::1", "IPv6 loopback"),
    ("::", "IPv6 unspecified"),
    ("fe80::1", "IPv6 link-local"),
    ("fe80::1%1", "IPv6 link-local with a zone"),
    ("fc00::1", "unique local"),
    ("fd12:3456::1", "unique local"),
    ("fec0::1", "site-local (deprecated)"),
    ("ff02::1", "IPv6 multicast"),
    ("::ffff:127.0.0.1", "IPv4-mapped loopback"),
    ("::ffff:7f00:1", "IPv4-mapped loopback, hex"),
    ("::ffff:a9fe:a9fe", "IPv4-mapped metadata"),
    ("::ffff:0:7f00:1", "IPv4-translated loopback"),
    ("::127.0.0.1", "IPv4-compatible loopback"),
    ("::7f00:1", "IPv4-compatible loopback, hex"),
    ("::808:808", "IPv4-compatible, deprecated even for a public address"),
    ("2002:7f00:1::", "6to4 of 127.0.0.1"),
    ("2002:a00:7::1", "6to4 of 10.0.0.7"),
    ("2002:a9fe:a9fe::", "6to4 of the metadata address"),
    ("64:ff9b::7f00:1", "NAT64 of 127.0.0.1"),
    ("64:ff9b::10.0.0.7", "NAT64 of 10.0.0.7"),
    ("64:ff9b::a9fe:a9fe", "NAT64 of the metadata address"),
    ("64:ff9b:1::7f00:1", "local-use NAT64"),
    ("64:ff9b:1:7f00:1::", "local-use NAT64, another embedding"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo of 127.0.0.1"),
    ("2001:0:7f00:1::", "Teredo with a loopback server"),
    ("2001:db8::1", "documentation"),
    ("100::1", "discard-only"),
]

PUBLIC = [
    ("93.184.215.14", "a public IPv4 address"),
    ("8.8.8.8", "a public IPv4 address"),
    ("2606:4700::6810:84e5", "a public IPv6 address"),
    ("::ffff:8.8.8.8", "IPv4-mapped public"),
    ("64:ff9b::808:808", "NAT64 of a public address (what DNS64 answers)"),
    ("2002:808:808::1", "6to4 of a public address"),
]


@pytest.mark.parametrize(("text", "form"), INTERNAL)
def test_internal_forms_are_refused(text: str, form: str):
    address = ipaddress.ip_address(text)
    assert is_internal(address), form
    assert not allowed(address, ()), form
    with pytest.raises(RefusedAddress):
        check_host(f"[{text}]" if ":" in text else text, ())


@pytest.mark.parametrize(("text", "form"), PUBLIC)
def test_public_forms_pass(text: str, form: str):
    address = ipaddress.ip_address(text)
    assert not is_internal(address), form
    check_host(text, ())


@pytest.mark.parametrize(
    "host",
    ["127.1", "0x7f.0.0.1", "0x7f000001", "2130706433", "0177.0.0.1", "017700000001", "127.0.0.1.", "[::1]"],
)
def test_every_literal_spelling_of_loopback_is_read_as_loopback(host: str):
    address = literal_address(host)
    assert address is not None and address.is_loopback
    with pytest.raises(RefusedAddress):
        check_host(host, ())


@pytest.mark.parametrize("host", ["example.com", "1.2.3.4.example.com", "0x7f.example", "localhost"])
def test_a_name_is_left_to_the_resolver(host: str):
    assert literal_address(host) is None


@pytest.mark.parametrize(
    "text",
    ["::ffff:127.0.0.1", "2002:7f00:1::", "64:ff9b::7f00:1", "::127.0.0.1", "2001:0:4136:e378:8000:63bf:80ff:fffe"],
)
def test_an_allowed_network_does_not_let_its_other_encodings_through(text: str):
    assert allowed(ipaddress.ip_address("127.0.0.1"), LOOPBACK_ALLOWED)
    assert not allowed(ipaddress.ip_address(text), LOOPBACK_ALLOWED)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://[2002:7f00:1::]/hook", "internal address"),
        ("http://[64:ff9b::7f00:1]/hook", "internal address"),
        ("http://[::ffff:169.254.169.254]/latest", "internal address"),
        ("http://0x7f.1/hook", "internal address"),
        ("http://2130706433/hook", "internal address"),
        ("http://localhost./hook", "names this machine"),
        ("http://api.localhost/hook", "names this machine"),
        ("ftp://example.com/", "must be an http or https URL"),
        ("http://user:pw@example.com/", "must not hold credentials"),
        ("http://example.com:99999/", "not a valid URL"),
    ],
)
def test_url_problems(url: str, problem: str):
    found = url_problem(url, allow_http=True, allowed_networks=())
    assert found is not None and problem in found


def test_https_only_unless_allowed():
    assert url_problem("http://example.com/hook", allow_http=False, allowed_networks=()) == "must be an https URL"
    assert url_problem("https://example.com/hook", allow_http=False, allowed_networks=()) is None


class FixedResolver(AbstractResolver):
    """Answers every name with the given addresses (a DNS record re-pointed after saving)."""

    def __init__(self, *addresses: str) -> None:
        self.addresses = addresses

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[Any]:
        return [
            {"hostname": host, "host": address, "port": port, "family": family, "proto": 0, "flags": 0}
            for address in self.addresses
        ]

    async def close(self) -> None:
        return None


@pytest.mark.parametrize("address", ["2002:7f00:1::", "64:ff9b::a9fe:a9fe", "::ffff:10.0.0.1", "fec0::1"])
async def test_a_name_resolving_to_an_embedded_internal_address_is_refused_at_connection(address: str):
    with pytest.raises(RefusedAddress):
        await SafeResolver(LOOPBACK_ALLOWED, FixedResolver(address)).resolve("hooks.example.com", 443)


async def test_the_resolver_keeps_only_the_public_answers():
    kept = await SafeResolver((), FixedResolver("2002:7f00:1::", "93.184.215.14")).resolve("hooks.example.com", 443)
    assert [answer["host"] for answer in kept] == ["93.184.215.14"]
