"""Settings from environment variables only: typed, frozen and checked at start.

A missing required value stops the boot with a message naming the variable. Secrets have no
defaults; local development generates its own (see libs/local/stores.py).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from libs.contract.parts import BY_NAME, Part

MIN_SECRET_LENGTH = 32


class SettingsError(RuntimeError):
    """A required variable is missing or a value does not parse."""


class Env:
    """Typed reads of an environment mapping."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = os.environ if environ is None else environ

    def _raw(self, name: str, default: str | None) -> str:
        value = self._environ.get(name)
        if value is None or value == "":
            if default is None:
                raise SettingsError(f"environment variable {name} is required")
            return default
        return value

    def text(self, name: str, default: str | None = None) -> str:
        return self._raw(name, default)

    def integer(self, name: str, default: int | None = None, *, minimum: int | None = None) -> int:
        raw = self._raw(name, None if default is None else repr(default))
        try:
            value = int(raw)
        except ValueError:
            raise SettingsError(f"environment variable {name} must be an integer, got {raw!r}") from None
        if minimum is not None and value < minimum:
            raise SettingsError(f"environment variable {name} must be at least {minimum}, got {value}")
        return value

    def part_url(self, part: str) -> str:
        """The base URL of another part: <PART>_URL, else its port on this machine."""
        return self.text(f"{part.upper()}_URL", f"http://127.0.0.1:{BY_NAME[part].port}").rstrip("/")

    def secret(self, name: str) -> str:
        value = self._raw(name, None)
        if len(value) < MIN_SECRET_LENGTH:
            raise SettingsError(f"environment variable {name} must be at least {MIN_SECRET_LENGTH} characters")
        return value

    def optional_secret(self, name: str) -> str | None:
        """A secret that may be unset (or empty); when set, as strict as `secret`."""
        return self.secret(name) if self._environ.get(name) else None


@dataclass(frozen=True)
class ServiceSettings:
    """What every service reads: its database, Redis, the internal token secret and pool sizes."""

    name: str
    db_schema: str
    database_url: str
    # For work that keeps session state across transactions (the outbox relay's advisory lock):
    # PostgreSQL itself when DATABASE_URL goes through PgBouncer's transaction pooling.
    session_database_url: str
    db_pool_min: int
    db_pool_max: int
    redis_url: str
    redis_prefix: str
    internal_token_secret: str
    # A second secret accepted (never used to sign) while the internal secret is rotated.
    internal_token_overlap_secret: str | None
    log_level: str

    @property
    def internal_secrets_also_accepted(self) -> tuple[str, ...]:
        """What an incoming internal token may be signed with besides `internal_token_secret`."""
        return (self.internal_token_overlap_secret,) if self.internal_token_overlap_secret else ()

    @classmethod
    def load(cls, part: Part, environ: Mapping[str, str] | None = None) -> ServiceSettings:
        """The part's settings from `environ` (default: the process environment); each part's
        settings class extends this with its own fields, the one way every part loads them."""
        return cls(**common_fields(part, Env(environ)))


def common_fields(part: Part, env: Env) -> dict[str, Any]:
    """The settings every part shares, for the `load` of each part's own settings class."""
    return {
        "name": part.name,
        "db_schema": part.schema,
        "database_url": env.text("DATABASE_URL"),
        "session_database_url": env.text("SESSION_DATABASE_URL", env.text("DATABASE_URL")),
        "db_pool_min": env.integer("DB_POOL_MIN", 1, minimum=0),
        "db_pool_max": env.integer("DB_POOL_MAX", 32, minimum=1),
        "redis_url": env.text("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "redis_prefix": env.text("REDIS_PREFIX", "aivis:"),
        "internal_token_secret": env.secret("INTERNAL_TOKEN_SECRET"),
        "internal_token_overlap_secret": env.optional_secret("INTERNAL_TOKEN_OVERLAP_SECRET"),
        "log_level": env.text("LOG_LEVEL", "INFO").upper(),
    }


def nameservers(raw: str) -> tuple[str, ...]:
    """DNS_NAMESERVERS: IP addresses, comma-separated."""
    found = tuple(name.strip() for name in raw.split(",") if name.strip())
    for name in found:
        try:
            ipaddress.ip_address(name)
        except ValueError:
            raise SettingsError(f"environment variable DNS_NAMESERVERS must list IP addresses, got {name!r}") from None
    return found
