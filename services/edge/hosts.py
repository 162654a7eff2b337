"""The hostname a request is for, from its `Host` header, in the one form domains are stored in:
lower case, no port, no trailing dot, an internationalised name in its ASCII (punycode) form.

A Host that cannot name an App domain (an IP address, a name without a dot such as `edge` or
`localhost`) addresses the edge itself: its health and TLS endpoints (services/edge/views.py).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

import idna

from libs.contract.validators import HOSTNAME_MAX, HOSTNAME_PATTERN

_HOSTNAME = re.compile(HOSTNAME_PATTERN)
# A label of letters, digits and hyphens: a name the edge itself may answer to.
_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")


class BadHost(ValueError):
    """A Host header that names no host."""


@dataclass(frozen=True)
class Host:
    name: str
    # An IP address or a single label: the edge's own name, never an App's.
    own: bool


def app_hostname(name: str) -> str | None:
    """`name` (a domain, any case, maybe with a trailing dot or non-ASCII) in stored form, or None."""
    name = name.strip().lower()
    name = name[:-1] if name.endswith(".") else name  # a fully qualified name's root
    if not name or name.endswith("."):
        return None
    if not name.isascii():
        try:
            name = idna.encode(name, uts46=True).decode()
        except idna.IDNAError:
            return None
    if len(name) > HOSTNAME_MAX or not _HOSTNAME.match(name):
        return None
    return name


def parse_host(header: str | None) -> Host:
    """The host a request names; BadHost when the header is absent or names none."""
    if not header or not header.strip():
        raise BadHost("a Host header is required")
    value = header.strip()
    if value.startswith("["):
        literal, bracket, rest = value[1:].partition("]")
        if not bracket:
            raise BadHost("not an IPv6 address")
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            raise BadHost("not a host and port")
        try:
            return Host(str(ipaddress.IPv6Address(literal)), own=True)
        except ValueError:
            raise BadHost("not an IPv6 address") from None
    name, colon, port = value.rpartition(":") if ":" in value else (value, "", "")
    if colon and not (port.isdigit() and len(port) <= 5):
        raise BadHost("not a host and port")
    try:
        return Host(str(ipaddress.IPv4Address(name)), own=True)
    except ValueError:
        pass
    lowered = name.lower()
    if _LABEL.match(lowered):
        return Host(lowered, own=True)
    hostname = app_hostname(name)
    if hostname is None:
        raise BadHost("not a hostname")
    return Host(hostname, own=False)
