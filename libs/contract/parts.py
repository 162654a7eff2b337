"""The parts of the platform: what each one serves, owns and needs. One list, used by the
database bootstrap, the local runner, the tests and the Kubernetes manifests' generator."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROLE_PREFIX = "aivis_"
METRICS_PORT_OFFSET = 1000


@dataclass(frozen=True)
class Part:
    name: str
    schema: str
    # "gateway" or "services.<name>": its app.py has `app_factory`, its migrations/ the SQL.
    package: str
    # Where the part answers on a single machine; a deployment sets <PART>_URL instead.
    port: int
    # gunicorn workers per process group (locally) and per pod (Kubernetes); scale out with replicas.
    workers: int = 1
    extensions: tuple[str, ...] = ()
    # The parts it calls over HTTP (docs/architecture.md, "Internal contracts between parts"); the
    # network policies let it reach these and nothing else of the platform.
    calls: tuple[str, ...] = ()
    # How many outbox relays each worker runs. A relay's lock is a session advisory lock: each
    # holds a connection of its own (outside the pool) that keeps session state, past
    # PgBouncer's transaction pooling (SESSION_DATABASE_URL).
    outboxes: int = 0
    # Reaches addresses outside the cluster (webhook receivers): its network policy allows egress
    # to public addresses, never to the cluster's own ranges.
    public_egress: bool = False

    @property
    def relays(self) -> bool:
        return self.outboxes > 0

    @property
    def app(self) -> str:
        """gunicorn's "module:factory"."""
        return f"{self.package}.app:app_factory"

    @property
    def migrations(self) -> Path:
        return ROOT.joinpath(*self.package.split("."), "migrations")

    @property
    def metrics_port(self) -> int:
        """Where its gunicorn master serves `/metrics`: a listener of its own, never the public port."""
        return self.port + METRICS_PORT_OFFSET

    @property
    def role(self) -> str:
        """The database role of this part: it owns its schema and has no right on any other."""
        return ROLE_PREFIX + self.name


GATEWAY = Part(
    "gateway",
    "identity",
    "gateway",
    8080,
    workers=2,
    calls=("content", "apps", "personas", "search", "simulations", "events", "traffic", "analytics"),
    outboxes=2,  # products, webhooks
)
CONTENT = Part("content", "content", "services.content", 8081, extensions=("pg_trgm",), calls=("apps",), outboxes=1)
APPS = Part("apps", "apps", "services.apps", 8082, calls=("content", "gateway"), outboxes=1)
PERSONAS = Part("personas", "personas", "services.personas", 8083, outboxes=1)
# One worker a pod: each worker holds its organizations' vectors in memory; scale with replicas.
SEARCH = Part("search", "search", "services.search", 8084, extensions=("btree_gin",), calls=("content",))
# Its workers read Apps' published documents from the apps part.
SIMULATIONS = Part("simulations", "simulations", "services.simulations", 8085, calls=("apps",), outboxes=1)
# Webhooks and the audit trail: reads every part's events, sends deliveries to the public internet.
# What a stream lost it reads from the part that published it (its background catch-up: no
# request of those parts waits on it).
EVENTS = Part(
    "events",
    "events",
    "services.events",
    8086,
    calls=("gateway", "content", "apps", "personas", "simulations"),
    public_egress=True,
)

# The public face of every App on its own domains (services/edge): no credential, no table of its
# own (its schema stays empty: it keeps nothing), everything read through apps and kept warm in
# memory; it proxies to customers' origins on the public internet.
EDGE = Part("edge", "edge", "services.edge", 8087, workers=2, calls=("apps",), public_egress=True)
# AI traffic: agents' requests to the Apps, ingested and captured from the App edge's stream; it
# verifies agents by reverse DNS and their operators' key directories on the public internet.
TRAFFIC = Part("traffic", "traffic", "services.traffic", 8088, calls=("apps",), public_egress=True)
# Answers of AI engines and their analysis: reads brands (the gateway), competitors and prompts
# (personas) and the App routes cited pages are linked to (apps) in its background work, and calls
# the engines' vendors.
ANALYTICS = Part(
    "analytics",
    "analytics",
    "services.analytics",
    8089,
    calls=("gateway", "personas", "apps", "traffic"),
    public_egress=True,
)

PARTS: tuple[Part, ...] = (GATEWAY, CONTENT, APPS, PERSONAS, SEARCH, SIMULATIONS, EVENTS, EDGE, TRAFFIC, ANALYTICS)
# The parts that keep a webhook outbox (libs/common/webhook_outbox.py), read by the events service.
WEBHOOK_SOURCES: tuple[Part, ...] = (GATEWAY, CONTENT, APPS, PERSONAS, SIMULATIONS)
# The parts behind the gateway: each serves a share of the API's routes (the edge serves none).
SERVICES: tuple[Part, ...] = tuple(part for part in PARTS if part not in (GATEWAY, EDGE))
BY_NAME: dict[str, Part] = {part.name: part for part in PARTS}


def part_ports(environ: Mapping[str, str]) -> dict[str, int]:
    """The port each part listens on locally: `<PART>_PORT` (`GATEWAY_PORT`, ...) when set, else
    `PORT_BASE` plus the part's offset from the gateway's default port (gateway +0 ...
    simulations +5, events +6, edge +7, traffic +8, analytics +9), where `PORT_BASE` defaults to
    8080. A second copy runs beside the first with another `PORT_BASE`."""
    base = int(environ.get("PORT_BASE") or GATEWAY.port)
    return {
        part.name: int(environ.get(f"{part.name.upper()}_PORT") or base + part.port - GATEWAY.port) for part in PARTS
    }


def callers_of(callee: Part) -> tuple[Part, ...]:
    return tuple(part for part in PARTS if callee.name in part.calls)


def database_connections(pool_max: int, parts: Iterable[Part] = PARTS) -> int:
    """The most connections `parts` hold at once, one process group each (`workers` workers):
    every worker's pool full (`pool_max`) and one connection per outbox relay."""
    return sum(part.workers * (pool_max + part.outboxes) for part in parts)


def pool_max_within(connections: int, parts: Iterable[Part] = PARTS) -> int:
    """The largest pool size (DB_POOL_MAX) with which `parts` together hold at most `connections`
    connections (0 when even pools of one do not fit)."""
    listed = tuple(parts)
    workers = sum(part.workers for part in listed)
    return max(0, (connections - database_connections(0, listed)) // workers)
