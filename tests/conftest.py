"""Shared fixtures: a fresh database per test session, real Redis, every part as a real app.

The database is created and bootstrapped exactly as `make run` does it (roles, schemas,
migrations), then dropped at the end. Tests isolate by building their own organizations, so
nothing needs cleaning between them and tests never see each other's rows.

`stack` starts every part listed in libs/contract/parts.py on its own port, wired to the others as in
production; a new service joins the integration tests by being listed there.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import secrets
import socket
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import Any

import psycopg2
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from prometheus_client import generate_latest
from psycopg2 import sql
from psycopg2.extensions import make_dsn

from libs.common import bootstrap as db
from libs.common.db import create_pool
from libs.common.metrics import registry as metrics_registry
from libs.common.redis_client import create_redis
from libs.contract.parts import APPS, CONTENT, EDGE, GATEWAY, PARTS, SERVICES, Part
from libs.local.stores import forget_prefix
from tests.answer_shapes import answer_shapes_middleware, internal_answers_middleware
from tests.budget import TEST_POOL_MAX, max_connections
from tests.factories import AppsProducts, ContentFactory, DomainFactory, IdentityFactory, SimulationFactory

ADMIN_URL = os.environ.get("DATABASE_URL") or db.DEFAULT_DATABASE_URL
REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"

Client = TestClient[web.Request, web.Application]


@dataclass(frozen=True)
class TestDatabase:
    admin_dsn: str

    def dsn(self, part: Part) -> str:
        return db.part_dsn(self.admin_dsn, part)


# Held while the template is made or copied: CREATE DATABASE refuses a template another session uses.
TEMPLATE_LOCK = 0x61697670


def migrations_digest() -> str:
    digest = hashlib.sha256()
    for part in PARTS:
        for path in sorted(part.migrations.glob("*.sql")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@contextlib.contextmanager
def server_session() -> Iterator[psycopg2.extensions.cursor]:
    conn = psycopg2.connect(make_dsn(ADMIN_URL, dbname="postgres"))
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            yield cur
    finally:
        conn.close()


@contextlib.contextmanager
def fresh_database() -> Iterator[TestDatabase]:
    """A database of its own, dropped afterwards: a copy of one bootstrapped as `make run` does it
    (roles, schemas, migrations), made once per server and set of migrations — copying is a file
    copy, migrating again costs every worker seconds."""
    name = sql.Identifier(f"aivis_test_{uuid.uuid4().hex[:12]}")
    template = f"aivis_test_template_{migrations_digest()}"
    with server_session() as cur:
        cur.execute("SELECT pg_advisory_lock(%s)", (TEMPLATE_LOCK,))
        cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (template,))
        if cur.fetchone() is None:
            db.setup(make_dsn(ADMIN_URL, dbname=template))
        cur.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(name, sql.Identifier(template)))
    yield TestDatabase(make_dsn(ADMIN_URL, dbname=name.strings[0]))
    with server_session() as cur:
        cur.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))


@pytest.fixture(scope="session")
def database() -> Iterator[TestDatabase]:
    with fresh_database() as created:
        yield created


@pytest.fixture(scope="module")
def module_database() -> Iterator[TestDatabase]:
    """A database of the module's own, away from the shared stack's background work (its relays
    publishing, its simulation workers taking queued runs)."""
    with fresh_database() as created:
        yield created


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to start on a PostgreSQL too small for the suite: a run that meets "remaining
    connection slots are reserved" halfway through tells nobody why. `make test` starts one of
    the suite's own, sized for its workers. Checked once, by the process that starts the workers."""
    if hasattr(session.config, "workerinput"):
        return
    if "not stores" in session.config.getoption("markexpr", default=""):
        return  # `make check`: no test of this run needs a store
    workers = int(session.config.getoption("numprocesses", default=None) or 1)
    conn = psycopg2.connect(make_dsn(ADMIN_URL, dbname="postgres"))
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW max_connections")
            (allowed,) = cur.fetchone()
            usable = int(allowed)
    finally:
        conn.close()
    needed = max_connections(workers)
    if usable < needed:
        raise pytest.UsageError(
            f"PostgreSQL at {ADMIN_URL} allows {usable} connections; {workers} test workers need {needed}"
            " (`make test` starts a PostgreSQL of the suite's own, sized for them)"
        )


@pytest.fixture(scope="session")
def jwt_private_key() -> str:
    return Ed25519PrivateKey.generate().private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()


@pytest.fixture(scope="session")
def base_environ(jwt_private_key: str) -> Iterator[dict[str, str]]:
    """The environment every part of a test session shares; its Redis keys go at the end."""
    environ = {
        "REDIS_URL": REDIS_URL,
        "REDIS_PREFIX": f"test-{uuid.uuid4().hex[:8]}:",
        "INTERNAL_TOKEN_SECRET": secrets.token_urlsafe(48),
        "JWT_PRIVATE_KEY": jwt_private_key,
        "ENVIRONMENT": "development",
        # Test gateways listen on free ports: their links and OAuth endpoints follow each request's
        # origin, which only development allows (an outer PUBLIC_URL, e.g. `make test`'s, is not theirs).
        "PUBLIC_URL": "",
        "DB_POOL_MAX": str(TEST_POOL_MAX),
        # High enough that only the limits' own tests, which lower them, ever meet them.
        "RATE_LIMIT_PER_MINUTE": "600000",
        "RATE_LIMIT_BURST": "10000",
        "FAILED_CREDENTIALS_PER_MINUTE": "600000",
        "FAILED_CREDENTIALS_BURST": "10000",
        "DEVICE_CODES_PER_ADDRESS": "100000",
        # The command line's sign-ins poll every second, not every five (RFC 8628's default).
        "DEVICE_POLL_INTERVAL_SECONDS": "1",
        "USER_CODE_MISSES_PER_ACCOUNT": "100000",
        "USER_CODE_MISSES_PER_ADDRESS": "100000",
        "SIGN_IN_SLOW_DOWN_AFTER": "100000",
        "VISITOR_REQUESTS_PER_MINUTE": "600000",
        "VISITOR_REQUESTS_BURST": "10000",
        # Search indexes only in the tests about it (tests/search), which start an indexer of their own,
        # and in stacks of their own that turn it on (tests/reliability/test_faults.py).
        "SEARCH_INDEXING": "off",
        # AI traffic records the App edge's stream only in its own tests (tests/traffic), whose service
        # turns it on: no other service of a stack takes those entries first.
        "AI_TRAFFIC_CAPTURE": "off",
        # The stack's apps service sweeps released domains only at its start: the tests of releases
        # start an apps service of their own that sweeps every second and announces to a content
        # service they watch, which a sweep of the long-lived stack would take first.
        "DOMAIN_SWEEP_SECONDS": "86400",
        # Webhook receivers of the tests listen on loopback, over plain http.
        "WEBHOOK_ALLOW_HTTP": "true",
        "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
        # The edge's origins of the tests listen on 127.0.0.2 alone: every other internal address,
        # 127.0.0.1 included, stays refused (tests/edge/test_origin.py).
        "EDGE_ORIGIN_ALLOWED_NETWORKS": "127.0.0.2/32",
        "EVENTS_DB_POOL_MAX": "3",
    }
    yield environ
    forget_prefix(REDIS_URL, environ["REDIS_PREFIX"])


@contextlib.contextmanager
def owned_schema(admin_dsn: str, owner: str) -> Iterator[str]:
    """A scratch schema owned by `owner` (a part's role), dropped afterwards."""
    name = f"scratch_{uuid.uuid4().hex[:8]}"
    conn = psycopg2.connect(admin_dsn)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute(
                sql.SQL("CREATE SCHEMA {} AUTHORIZATION {}").format(sql.Identifier(name), sql.Identifier(owner))
            )
        yield name
        with conn.cursor() as cur:
            cur.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))
    finally:
        conn.close()


def metrics_text() -> str:
    """What the metrics listener would serve for the parts running in this test process."""
    return generate_latest(metrics_registry()).decode()


def bound_socket() -> socket.socket:
    """A socket bound to a free port and held: no other process can take the port before a server
    listens on it (as one could between `free_port()` and the bind), and nothing answers on it
    until one does."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


def build_app(part: Part, environ: Mapping[str, str], **kwargs: Any) -> web.Application:
    """A part's app from its module's `load_settings` and `create_app`, as gunicorn's factory does."""
    module = import_module(part.app.partition(":")[0])
    app: web.Application = module.create_app(module.load_settings(environ), **kwargs)
    return app


@dataclass
class Stack:
    environ: dict[str, str]
    database: TestDatabase
    servers: dict[str, TestServer]
    gateway: Client
    # Success answers of any gateway of the stack that their declared schema refuses, and of any
    # part's internal endpoints that their declared answer refuses (answer_shapes.py).
    shape_violations: list[str]

    def part_environ(self, part: Part, **extra: str) -> dict[str, str]:
        return {**self.environ, "DATABASE_URL": self.database.dsn(part), **extra}

    async def start_gateway(self, extra_environ: Mapping[str, str] | None = None, **kwargs: Any) -> Client:
        """Another gateway on the same stack (a second replica, or one with other settings)."""
        app = build_app(GATEWAY, self.part_environ(GATEWAY, **(extra_environ or {})), **kwargs)
        app.middlewares.append(answer_shapes_middleware(self.shape_violations))
        client = TestClient(TestServer(app))
        await client.start_server()
        return client


@contextlib.asynccontextmanager
async def started_stack(base_environ: dict[str, str], database: TestDatabase) -> AsyncIterator[Stack]:
    """Every part on a port of its own, wired together as in production."""
    sockets = {part.name: bound_socket() for part in PARTS}
    urls = {name: f"http://127.0.0.1:{sock.getsockname()[1]}" for name, sock in sockets.items()}
    environ = {**base_environ, **{f"{name.upper()}_URL": url for name, url in urls.items()}}
    servers: dict[str, TestServer] = {}
    client: Client | None = None
    shape_violations: list[str] = []

    def server(part: Part) -> TestServer:
        app = build_app(part, {**environ, "DATABASE_URL": database.dsn(part)})
        if part is GATEWAY:
            app.middlewares.append(answer_shapes_middleware(shape_violations))
        app.middlewares.append(internal_answers_middleware(part.name, shape_violations))
        return TestServer(app, socket_factory=lambda *_: sockets[part.name])

    try:
        for part in (*SERVICES, EDGE):
            servers[part.name] = server(part)
            await servers[part.name].start_server()
        client = TestClient(server(GATEWAY))
        await client.start_server()
        yield Stack(environ, database, servers, client, shape_violations)
    finally:
        if client is not None:
            await client.close()
        # The last started first: the edge, which calls the others every second, before them.
        for started in reversed(servers.values()):
            await started.close()
        for sock in sockets.values():
            sock.close()


@pytest.fixture(scope="session")
async def shared_stack(base_environ: dict[str, str], database: TestDatabase) -> AsyncIterator[Stack]:
    """One stack for every test of a worker: they isolate by organization, so they share it."""
    async with started_stack(base_environ, database) as started:
        yield started


@pytest.fixture
async def stack(shared_stack: Stack) -> AsyncIterator[Stack]:
    """The worker's stack, as a test of its own sees it: no cookie of an earlier test, and each
    answer its declared schema refuses reported against the test that received it."""
    shared_stack.gateway.session.cookie_jar.clear()
    shared_stack.shape_violations.clear()
    yield shared_stack
    assert shared_stack.shape_violations == [], "answers their declared response schema or type refuses"


@pytest.fixture
def gateway(stack: Stack) -> Client:
    return stack.gateway


@pytest.fixture
async def identity(database: TestDatabase, base_environ: dict[str, str]) -> AsyncIterator[IdentityFactory]:
    async with create_pool(database.dsn(GATEWAY), GATEWAY.schema, 1, 4) as pool:
        redis = create_redis(REDIS_URL)
        yield IdentityFactory(pool, redis, base_environ["JWT_PRIVATE_KEY"])
        await redis.aclose()


@pytest.fixture
def simulations(stack: Stack) -> SimulationFactory:
    return SimulationFactory(stack.servers["simulations"], stack.environ["INTERNAL_TOKEN_SECRET"])


@pytest.fixture
async def apps_products(database: TestDatabase) -> AsyncIterator[AppsProducts]:
    async with create_pool(database.dsn(APPS), APPS.schema, 1, 2) as pool:
        yield AppsProducts(pool)


@pytest.fixture
async def domains(database: TestDatabase) -> AsyncIterator[DomainFactory]:
    async with create_pool(database.dsn(APPS), APPS.schema, 1, 2) as pool:
        yield DomainFactory(pool)


@pytest.fixture
async def content(database: TestDatabase) -> AsyncIterator[ContentFactory]:
    async with create_pool(database.dsn(CONTENT), CONTENT.schema, 1, 2) as pool:
        yield ContentFactory(pool)


# Fixtures that need running stores (PostgreSQL, Redis) or start the platform's processes: a test
# whose fixtures include one is marked `stores`, and `make check` runs the tests with neither
# this mark nor `slow`.
STORE_FIXTURES = frozenset({"database", "module_database", "base_environ", "cluster", "private_stack", "postgres"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if STORE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.stores)
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    items[:] = longest_first(items, workers)


def longest_first(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """The order that ends the run soonest: the tests marked `long` each at the head of one of the
    workers' first shares, the longest first, spread so each share holds about as many of their
    seconds (a long test reached last would run alone while the other workers wait). xdist's
    worksteal scheduler hands out the collection in `workers` consecutive shares, the first
    `n // workers` long, and steals from their tails; every worker collects and orders alike."""
    long = sorted((item for item in items if item.get_closest_marker("long")), key=_seconds, reverse=True)
    if workers < 2 or not long:
        return items
    sizes, left = [], len(items)
    for index in range(workers):
        sizes.append(left // (workers - index))
        left -= sizes[-1]
    shares: list[list[pytest.Item]] = [[] for _ in range(workers)]
    loads = [0] * workers
    for item in long:
        lightest = loads.index(min(loads))
        shares[lightest].append(item)
        loads[lightest] += _seconds(item)
    rest = iter(item for item in items if not item.get_closest_marker("long"))
    for share, size in zip(shares, sizes, strict=True):
        share.extend(itertools.islice(rest, max(0, size - len(share))))
    return [item for share in shares for item in share] + list(rest)


def _seconds(item: pytest.Item) -> int:
    marker = item.get_closest_marker("long")
    return marker.kwargs["seconds"] if marker else 0
