"""Settings of the apps service, from the environment only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from libs.common.events import identity_events_stream
from libs.common.settings import Env, ServiceSettings, SettingsError, common_fields
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
    # A deleted app may be restored for this many days; the purge removes it after that.
    restore_days: int
    # How often the purge looks for deleted apps past their restore window.
    purge_interval_seconds: int

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
            restore_days=env.integer("APPS_RESTORE_DAYS", 30, minimum=1),
            purge_interval_seconds=env.integer("APPS_PURGE_INTERVAL_SECONDS", 3600, minimum=1),
        )
