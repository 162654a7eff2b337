"""Settings of the edge, from the environment only. The edge keeps no data: it needs Redis (the
change streams it follows, the request log it writes), the apps service and the internal token,
never a database."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass

from libs.common.client_address import Network, parse_trusted_proxies
from libs.common.settings import Env, SettingsError
from libs.contract.parts import Part


def parse_networks(name: str, text: str) -> tuple[Network, ...]:
    """CIDRs from a comma- or space-separated list (`127.0.0.0/8, ::1/128`)."""
    try:
        return tuple(ipaddress.ip_network(item, strict=False) for item in text.replace(",", " ").split())
    except ValueError as exc:
        raise SettingsError(f"environment variable {name} must list CIDRs: {exc}") from None


def access_log(value: str) -> str:
    if value not in ("failures", "all"):
        raise SettingsError(f"environment variable EDGE_ACCESS_LOG must be failures or all, not {value!r}")
    return value


@dataclass(frozen=True)
class EdgeSettings:
    name: str
    redis_url: str
    redis_prefix: str
    internal_token_secret: str
    log_level: str
    # Where the Apps are read (services/apps/views/edge.py).
    apps_url: str
    # How often the edge asks apps whether the Apps it holds changed: the bound on how long a
    # change of an App (config, domains, routes) takes to reach its answers.
    refresh_seconds: float
    # How many answers (pages, files, refusals) the edge holds in memory, over all Apps.
    cache_entries: int
    # What a CDN in front may hold: `Cache-Control: public, max-age=…, stale-while-revalidate=…`.
    max_age_seconds: int
    stale_seconds: int
    # Origins: how long a connection and a whole exchange may take, and the networks an origin
    # may be in although internal (development: a local origin); none by default.
    origin_connect_timeout_seconds: float
    origin_timeout_seconds: float
    origin_allowed_networks: tuple[Network, ...]
    # Proxies (Caddy, a load balancer) whose X-Forwarded-For names the client (libs/common/client_address.py).
    trusted_proxies: tuple[Network, ...]
    # The request log (docs/architecture.md, "The edge"): whether it is written (what the AI-traffic
    # part captures), and how many entries may wait to be written at most.
    capture: bool
    traffic_queue: int
    # The access log: `failures` (answers of 500 and above, and slow ones) or `all` (a line per request).
    access_log: str

    @classmethod
    def load(cls, part: Part, environ: Mapping[str, str] | None = None) -> EdgeSettings:
        env = Env(environ)
        return cls(
            name=part.name,
            redis_url=env.text("REDIS_URL", "redis://127.0.0.1:6379/0"),
            redis_prefix=env.text("REDIS_PREFIX", "aivis:"),
            internal_token_secret=env.secret("INTERNAL_TOKEN_SECRET"),
            log_level=env.text("LOG_LEVEL", "INFO").upper(),
            apps_url=env.part_url("apps"),
            refresh_seconds=env.integer("EDGE_REFRESH_MS", 1000, minimum=50) / 1000,
            cache_entries=env.integer("EDGE_CACHE_ENTRIES", 20_000, minimum=100),
            max_age_seconds=env.integer("EDGE_MAX_AGE_SECONDS", 30, minimum=0),
            stale_seconds=env.integer("EDGE_STALE_SECONDS", 300, minimum=0),
            origin_connect_timeout_seconds=env.integer("EDGE_ORIGIN_CONNECT_TIMEOUT_SECONDS", 5, minimum=1),
            origin_timeout_seconds=env.integer("EDGE_ORIGIN_TIMEOUT_SECONDS", 30, minimum=1),
            origin_allowed_networks=parse_networks(
                "EDGE_ORIGIN_ALLOWED_NETWORKS", env.text("EDGE_ORIGIN_ALLOWED_NETWORKS", "")
            ),
            trusted_proxies=parse_trusted_proxies(env.text("TRUSTED_PROXIES", "")),
            capture=env.text("EDGE_REQUEST_LOG", "on") != "off",
            traffic_queue=env.integer("EDGE_TRAFFIC_QUEUE", 10_000, minimum=1),
            access_log=access_log(env.text("EDGE_ACCESS_LOG", "failures")),
        )
