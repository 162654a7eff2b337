"""Settings of the apps service, from the environment only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from libs.common.events import identity_events_stream
from libs.common.settings import Env, ServiceSettings, SettingsError, common_fields, nameservers
from libs.contract.parts import Part
from services.apps.edge import EDGE_PROVIDERS


@dataclass(frozen=True)
class AppsSettings(ServiceSettings):
    # Route targets and candidates come from the content service (product names from events).
    content_url: str
    # Which edge provider registers new domains (services/apps/edge.py).
    edge_provider: str
    # Product changes the event stream lost are read from the gateway (libs/common/catch_up.py).
    gateway_url: str
    # Domain ownership (services/apps/verification.py): the DNS servers asked for TXT records (none:
    # the system's resolv.conf), their port, how long one lookup may take, how long an unverified
    # claim holds a hostname, and how often lapsed claims are released and withdrawn domains (released,
    # deleted on their own, of a purged app) announced to content.
    dns_nameservers: tuple[str, ...]
    dns_port: int
    dns_timeout_seconds: int
    domain_claim_days: int
    domain_sweep_seconds: int
    # A verified domain's TXT record is looked up again this often; once missing this long, another
    # organization's proof takes the hostname over (services/apps/rechecks.py).
    domain_recheck_seconds: int
    domain_reclaim_grace_seconds: int
    # A deleted app may be restored for this many days; the purge removes it after that.
    restore_days: int
    # How often the purge looks for deleted apps past their restore window.
    purge_interval_seconds: int
    # In an App's llms.txt, documents of a lower priority are listed under "## Optional".
    llms_optional_below: int

    @property
    def events_stream(self) -> str:
        return identity_events_stream(self.redis_prefix)

    @classmethod
    def load(cls, part: Part, environ: Mapping[str, str] | None = None) -> AppsSettings:
        env = Env(environ)
        edge_provider = env.text("EDGE_PROVIDER", "local")
        if edge_provider not in EDGE_PROVIDERS:
            known = ", ".join(sorted(EDGE_PROVIDERS))
            raise SettingsError(f"environment variable EDGE_PROVIDER must be one of {known}, got {edge_provider!r}")
        return cls(
            **common_fields(part, env),
            content_url=env.part_url("content"),
            edge_provider=edge_provider,
            gateway_url=env.part_url("gateway"),
            dns_nameservers=nameservers(env.text("DNS_NAMESERVERS", "")),
            dns_port=env.integer("DNS_PORT", 53, minimum=1),
            dns_timeout_seconds=env.integer("DNS_TIMEOUT_SECONDS", 5, minimum=1),
            domain_claim_days=env.integer("DOMAIN_CLAIM_DAYS", 7, minimum=1),
            domain_sweep_seconds=env.integer("DOMAIN_SWEEP_SECONDS", 60, minimum=1),
            domain_recheck_seconds=env.integer("DOMAIN_RECHECK_SECONDS", 6 * 3600, minimum=1),
            domain_reclaim_grace_seconds=env.integer("DOMAIN_RECLAIM_GRACE_SECONDS", 3 * 86400, minimum=1),
            restore_days=env.integer("APPS_RESTORE_DAYS", 30, minimum=1),
            purge_interval_seconds=env.integer("APPS_PURGE_INTERVAL_SECONDS", 3600, minimum=1),
            llms_optional_below=env.integer("LLMS_OPTIONAL_PRIORITY", 20, minimum=0),
        )
