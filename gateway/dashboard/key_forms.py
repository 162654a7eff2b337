"""The key forms' fields: what a person may choose, read back from a submitted form."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from multidict import MultiDictProxy

MAX_NAME_LENGTH = 200

EXPIRY_CHOICES: tuple[tuple[str, str], ...] = (
    ("never", "Never"),
    ("7", "In 7 days"),
    ("30", "In 30 days"),
    ("90", "In 90 days"),
    ("365", "In one year"),
)
GRACE_CHOICES: tuple[tuple[str, str], ...] = (
    ("0", "Revoke the old key now"),
    ("1", "After 1 hour"),
    ("24", "After 24 hours"),
    ("72", "After 3 days"),
    ("168", "After 7 days"),
)

# A ready `curl` line for a new key: a route that needs nothing but the organization, by scope.
CURL_ROUTES: tuple[tuple[str, str], ...] = (
    ("simulations:read", "/api/v1/agent-simulation/runs"),
    ("content:read", "/api/v1/apps"),
)


@dataclass
class KeyForm:
    """A create or rotate form as submitted (or about to be shown), with its errors."""

    name: str = ""
    scopes: frozenset[str] = frozenset()
    expiry: str = "never"
    grace: str = "24"
    errors: dict[str, str] = field(default_factory=dict)

    def expires_at(self, now: datetime) -> datetime | None:
        return None if self.expiry == "never" else now + timedelta(days=int(self.expiry))

    @property
    def grace_period(self) -> timedelta:
        return timedelta(hours=int(self.grace))


def read_key_form(form: MultiDictProxy[Any], allowed: frozenset[str], with_grace: bool = False) -> KeyForm:
    """The fields of a submitted form; `errors` says what is wrong, by field."""
    name = str(form.get("name", "")).strip()
    chosen = [str(value) for value in form.getall("scopes", [])]
    result = KeyForm(name=name, scopes=frozenset(chosen) & allowed, expiry=str(form.get("expiry", "never")))
    if not name:
        result.errors["name"] = "Give the key a name, such as the service that will use it."
    elif len(name) > MAX_NAME_LENGTH:
        result.errors["name"] = f"A name has at most {MAX_NAME_LENGTH} characters."
    if not chosen:
        result.errors["scopes"] = "Choose at least one scope."
    elif not set(chosen) <= allowed:
        result.errors["scopes"] = "Only the scopes listed can be chosen."
    if result.expiry not in dict(EXPIRY_CHOICES):
        result.errors["expiry"] = "Choose one of the expiry options."
        result.expiry = "never"
    if with_grace:
        result.grace = str(form.get("grace", ""))
        if result.grace not in dict(GRACE_CHOICES):
            result.errors["grace"] = "Choose when the old key stops working."
            result.grace = "24"
    return result


def curl_line(base_url: str, secret: str, scopes: frozenset[str]) -> str | None:
    """A command that calls the API with the new key and answers 200, when its scopes allow one."""
    for scope, path in CURL_ROUTES:
        if scope in scopes:
            return f'curl -s -H "x-api-key: {secret}" {base_url}{path}'
    return None
