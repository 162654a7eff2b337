"""Settings of the events service, from the environment only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from libs.common.address_policy import Network, parse_networks
from libs.common.settings import Env, ServiceSettings, SettingsError, common_fields
from libs.contract.parts import Part


def parse_flag(name: str, text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"environment variable {name} must be true or false, got {text!r}")


@dataclass(frozen=True)
class EventsSettings(ServiceSettings):
    # Each webhook source (WEBHOOK_SOURCES) by name: what its event stream lost is read from it.
    source_urls: Mapping[str, str]
    # Plain http endpoints (local development and tests); production needs https.
    webhook_allow_http: bool
    # Addresses an endpoint may resolve to although internal (loopback, private, link-local).
    webhook_allowed_networks: tuple[Network, ...]
    # Deliveries sent at once by one process; a slow endpoint holds one of these, never the rest.
    webhook_concurrency: int
    # Of those, at most this many to one endpoint.
    webhook_concurrency_per_endpoint: int
    # How long a claimed delivery is held by its worker before another may send it (a worker
    # that died leaves it due again then): above the 10 s send timeout.
    webhook_lease_seconds: int
    audit_retention_days: int
    delivery_retention_days: int

    @classmethod
    def load(cls, part: Part, environ: Mapping[str, str] | None = None) -> EventsSettings:
        env = Env(environ)
        fields = common_fields(part, env)
        # Its own cap when set (the tests keep this part's pool small), else DB_POOL_MAX.
        fields["db_pool_max"] = env.integer("EVENTS_DB_POOL_MAX", fields["db_pool_max"], minimum=1)
        return cls(
            **fields,
            # Each of WEBHOOK_SOURCES (tests/deploy/test_manifests.py holds the names to the parts list).
            source_urls={
                "gateway": env.part_url("gateway"),
                "content": env.part_url("content"),
                "apps": env.part_url("apps"),
                "personas": env.part_url("personas"),
                "simulations": env.part_url("simulations"),
            },
            webhook_allow_http=parse_flag("WEBHOOK_ALLOW_HTTP", env.text("WEBHOOK_ALLOW_HTTP", "false")),
            webhook_allowed_networks=parse_networks(
                "WEBHOOK_ALLOWED_NETWORKS", env.text("WEBHOOK_ALLOWED_NETWORKS", " ")
            ),
            webhook_concurrency=env.integer("WEBHOOK_CONCURRENCY", 64, minimum=1),
            webhook_concurrency_per_endpoint=env.integer("WEBHOOK_CONCURRENCY_PER_ENDPOINT", 8, minimum=1),
            webhook_lease_seconds=env.integer("WEBHOOK_LEASE_SECONDS", 60, minimum=15),
            audit_retention_days=env.integer("AUDIT_RETENTION_DAYS", 90, minimum=1),
            delivery_retention_days=env.integer("DELIVERY_RETENTION_DAYS", 30, minimum=1),
        )
