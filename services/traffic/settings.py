"""Settings of the AI-traffic service, from the environment only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from libs.common.events import edge_requests_stream
from libs.common.settings import Env, ServiceSettings, SettingsError, common_fields, nameservers
from libs.contract.parts import Part
from services.traffic.catalog import SNAPSHOT

STORES = ("postgres", "clickhouse")


@dataclass(frozen=True)
class TrafficSettings(ServiceSettings):
    # Which App a hostname belongs to is asked of the apps service.
    apps_url: str
    # Raw events older than this many days are dropped with their partition (rollups likewise).
    retention_days: int
    # Where events are kept: PostgreSQL (default) or ClickHouse at CLICKHOUSE_URL (docs/operations.md).
    store: str
    clickhouse_url: str | None
    # The agent catalog's snapshot (services/traffic/data/agents.json unless another is named).
    catalog_path: Path
    # Reverse DNS of agents' addresses: the servers asked (none: resolv.conf), their port, the wait.
    dns_nameservers: tuple[str, ...]
    dns_port: int
    dns_timeout_seconds: int
    # How long a Web Bot Auth key directory may take to answer.
    key_directory_timeout_seconds: int
    # Whether requests the App edge answered are recorded from its stream (edge.requests).
    capture: bool

    @property
    def capture_stream(self) -> str:
        return edge_requests_stream(self.redis_prefix)

    @classmethod
    def load(cls, part: Part, environ: Mapping[str, str] | None = None) -> TrafficSettings:
        env = Env(environ)
        store = env.text("AI_TRAFFIC_STORE", "postgres")
        if store not in STORES:
            raise SettingsError(f"environment variable AI_TRAFFIC_STORE must be postgres or clickhouse, got {store!r}")
        clickhouse_url = env.text("CLICKHOUSE_URL", "") or None
        if store == "clickhouse" and clickhouse_url is None:
            raise SettingsError("environment variable CLICKHOUSE_URL is required when AI_TRAFFIC_STORE is clickhouse")
        return cls(
            **common_fields(part, env),
            apps_url=env.part_url("apps"),
            retention_days=env.integer("AI_TRAFFIC_RETENTION_DAYS", 90, minimum=8),
            store=store,
            clickhouse_url=clickhouse_url,
            catalog_path=Path(env.text("AI_TRAFFIC_CATALOG", "") or SNAPSHOT),
            dns_nameservers=nameservers(env.text("DNS_NAMESERVERS", "")),
            dns_port=env.integer("DNS_PORT", 53, minimum=1),
            dns_timeout_seconds=env.integer("DNS_TIMEOUT_SECONDS", 5, minimum=1),
            key_directory_timeout_seconds=env.integer("KEY_DIRECTORY_TIMEOUT_SECONDS", 5, minimum=1),
            capture=env.text("AI_TRAFFIC_CAPTURE", "on") != "off",
        )
