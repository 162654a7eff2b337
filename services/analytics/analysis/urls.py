"""URLs as one page is named once: normalised, and their registrable domain by the public suffix
list shipped inside `publicsuffixlist` (a snapshot in the package; nothing is fetched at run time)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from publicsuffixlist import PublicSuffixList

_SUFFIXES = PublicSuffixList()
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Parameters that say who sent a visitor, not which page it is (engines add utm_source themselves).
_TRACKING = ("utm_", "gclid", "fbclid", "msclkid", "mc_cid", "mc_eid", "ref_src")


def host_name(hostname: str) -> str:
    """A host as compared: lower case, no final dot, an international name in its ASCII form."""
    host = hostname.rstrip(".").lower()
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def normalise(url: str) -> str | None:
    """`url` with its scheme and host lower-cased (an international host in its ASCII form), no
    default port, fragment or tracking parameters, the other parameters sorted, and no trailing
    slash but the root's; None for anything but an http(s) URL with a host."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    netloc = host_name(parts.hostname) + (f":{port}" if port and port != _DEFAULT_PORTS[scheme] else "")
    path = parts.path.rstrip("/") or "/"
    query = sorted(
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if not name.lower().startswith(_TRACKING)
    )
    return urlunsplit((scheme, netloc, path, urlencode(query), ""))


def host_of(url: str) -> str:
    """The host of a normalised URL."""
    return urlsplit(url).hostname or ""


def registrable_domain(host: str) -> str:
    """The domain one registrant holds (`shop.example.co.uk` → `example.co.uk`); the host itself
    when it has none (an address, `localhost`, a bare suffix)."""
    return _SUFFIXES.privatesuffix(host) or host


def within(host: str, domains: list[str]) -> bool:
    """Whether `host` is one of `domains` or under one of them."""
    return any(host == domain or host.endswith("." + domain) for domain in domains)
