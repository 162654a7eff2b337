"""Where a page lives: its path within the product, and its public address.

The one rule (docs/architecture.md, "Content"): a slug such as `blog/launch-day` becomes the
path `/blog/launch-day` (a path given directly is brought to the same canonical form), and
the public address is `https://<canonical domain><path>` once the page has a canonical domain.
A page without one keeps the address it was given, if any.
"""

from __future__ import annotations

from dataclasses import dataclass

from libs.contract.validators import normalize_route_path


@dataclass(frozen=True)
class Location:
    file_path: str
    source_url: str | None


def locate(slug_or_path: str, canonical_domain: str | None) -> Location:
    """The path of a slug or path, and its address on the canonical domain (None without one)."""
    file_path = normalize_route_path(slug_or_path)
    source_url = None if canonical_domain is None else f"https://{canonical_domain}{file_path}"
    return Location(file_path, source_url)


def slug_of(file_path: str) -> str:
    """The slug a path was made from (the path without its leading slash)."""
    return file_path[1:]
