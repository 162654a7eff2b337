"""The slug an app gets when its creator gives none."""

from __future__ import annotations

import re
import unicodedata

from libs.contract.validators import SLUG_MAX

_NOT_SLUG = re.compile(r"[^a-z0-9]+")
FALLBACK = "app"


def derive_slug(name: str) -> str:
    """ASCII letters and digits of the name, lower-cased, every other run as one hyphen.

    Accents are dropped ("Café Menu" → "cafe-menu"); a name without any ASCII letter or digit
    ("日本語") gets FALLBACK, and a second such app in the organization needs a slug of its own.
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    slug = _NOT_SLUG.sub("-", ascii_name).strip("-")
    return slug[:SLUG_MAX].rstrip("-") or FALLBACK
