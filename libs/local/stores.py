"""The backing stores and secrets of a local run: found, or started under `.data/`.

PostgreSQL and Redis are taken from DATABASE_URL / REDIS_URL (defaults: the local servers).
When one does not answer but its server program is installed, a private one is started under
`.data/` on a side port (`PRIVATE_POSTGRES_PORT`, `PRIVATE_REDIS_PORT`; defaults 55432 and 56379)
and stopped again when the run ends. Local secrets are generated once
into `.data/secrets.env`; nothing secret is ever written in the repository.

`python -m deploy.stack exec -- CMD...` runs CMD with the stores up and the environment set; the
tests and benchmarks start and stop private stores of their own with the same functions.
`python -m deploy.stack exec --own-postgres N -- CMD...` (what `make test` runs) gives CMD a
throwaway PostgreSQL of its own that allows N connections, whatever else runs on the machine.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import psycopg2
import redis
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from psycopg2.extensions import make_dsn

from libs.common.bootstrap import DEFAULT_DATABASE_URL
from libs.contract.parts import GATEWAY, PARTS, ROOT, Part, part_ports, pool_max_within
from libs.local.ports import free_port

DATA = ROOT / ".data"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_PRIVATE_POSTGRES_PORT = 55432
DEFAULT_PRIVATE_REDIS_PORT = 56379
# Connections left for everything but the parts' processes: migrations, `make admin`, psql.
LOCAL_HEADROOM_CONNECTIONS = 10
# The pool size a part takes when the server has room for it.
DEFAULT_POOL_MAX = 32
SECRETS_FILE = DATA / "secrets.env"


def log(message: str) -> None:
    print(f"[stack] {message}", file=sys.stderr, flush=True)


def postgres_answers(url: str) -> bool:
    try:
        psycopg2.connect(make_dsn(url, dbname="postgres", connect_timeout=2)).close()
    except psycopg2.OperationalError:
        return False
    return True


def redis_answers(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 6379), timeout=2) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def forget_prefix(url: str, prefix: str) -> None:
    """Delete every Redis key under `prefix`: what a test session or a benchmark leaves behind."""
    client = redis.Redis.from_url(url)
    try:
        for key in client.scan_iter(match=f"{prefix}*"):
            client.delete(key)
    finally:
        client.close()


def _wait_until(check: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} did not come up within {seconds:g}s")
        time.sleep(0.2)


def _as_postgres_user() -> list[str]:
    """initdb and postgres refuse to run as root: run them as the `postgres` user then."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise SystemExit("running as root, and there is no 'postgres' user to run a private PostgreSQL") from None
    return ["runuser", "-u", "postgres", "--"]


def private_port(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


@contextmanager
def private_postgres(
    directory: Path | None = None, port: int | None = None, options: Mapping[str, str] | None = None
) -> Iterator[str]:
    """A PostgreSQL of our own (default: under .data/postgres), stopped when the context exits;
    `options` are server settings for this start (`-c name=value`)."""
    if not (shutil.which("initdb") and shutil.which("pg_ctl")):
        raise SystemExit("PostgreSQL does not answer at DATABASE_URL and initdb/pg_ctl are not installed")
    directory = directory or DATA / "postgres"
    port = port or private_port("PRIVATE_POSTGRES_PORT", DEFAULT_PRIVATE_POSTGRES_PORT)
    prefix = _as_postgres_user()
    if not (directory / "PG_VERSION").exists():
        directory.mkdir(parents=True, exist_ok=True)
        if prefix:
            shutil.chown(directory, "postgres")
        log(f"initialising a private PostgreSQL in {directory}")
        initdb = [*prefix, "initdb", "-D", str(directory), "-U", "postgres", "--auth=trust"]
        subprocess.run(initdb, check=True, stdout=subprocess.DEVNULL)
    start_postgres(directory, port, options)
    url = f"postgresql://postgres@127.0.0.1:{port}/aivis"
    log(f"private PostgreSQL on port {port}")
    try:
        yield url
    finally:
        stop_postgres(directory)
        log("private PostgreSQL stopped")


def start_postgres(directory: Path, port: int, options: Mapping[str, str] | None = None) -> None:
    """Start the private PostgreSQL in `directory` on `port` and wait until it accepts connections."""
    settings = " ".join(f"-c {name}={value}" for name, value in (options or {}).items())
    flags = f"-p {port} -c listen_addresses=127.0.0.1 -k {directory} {settings}".strip()
    command = [*_as_postgres_user(), "pg_ctl", "-D", str(directory), "-o", flags, "-l", str(directory / "server.log")]
    subprocess.run([*command, "-w", "start"], check=True, stdout=subprocess.DEVNULL)


@contextmanager
def throwaway_postgres(max_connections: int) -> Iterator[str]:
    """A PostgreSQL that lives as long as the context, in a temporary directory on a free port,
    allowing `max_connections`. Built for test runs: durability is traded for speed (no fsync),
    since its data is deleted when it stops."""
    with tempfile.TemporaryDirectory(prefix="aivis-postgres-") as scratch:
        os.chmod(scratch, 0o755)  # initdb may run as the `postgres` user: it must reach its directory
        directory = Path(scratch) / "data"
        options = {
            "max_connections": str(max_connections),
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
        }
        port = free_port()
        with private_postgres(directory, port, options) as url:
            log(f"the run's own PostgreSQL: port {port}, max_connections {max_connections}, data in {directory}")
            yield url


def stop_postgres(directory: Path) -> None:
    """Stop the private PostgreSQL in `directory` (fast: open connections are ended)."""
    subprocess.run(
        [*_as_postgres_user(), "pg_ctl", "-D", str(directory), "-m", "fast", "-w", "stop"],
        check=False,
        stdout=subprocess.DEVNULL,
    )


@contextmanager
def private_redis(directory: Path | None = None, port: int | None = None) -> Iterator[str]:
    """A Redis of our own, in memory only (its working directory default: .data/redis), stopped
    when the context exits."""
    if not shutil.which("redis-server"):
        raise SystemExit("Redis does not answer at REDIS_URL and redis-server is not installed")
    directory = directory or DATA / "redis"
    port = port or private_port("PRIVATE_REDIS_PORT", DEFAULT_PRIVATE_REDIS_PORT)
    directory.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
        ],
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        _wait_until(lambda: redis_answers(url), "the private Redis")
        log(f"private Redis on port {port}")
        yield url
    finally:
        process.terminate()
        process.wait(10)
        log("private Redis stopped")


def local_secrets() -> dict[str, str]:
    """The secrets of local runs, generated on first use into .data/secrets.env (mode 0600)."""
    if not SECRETS_FILE.exists():
        DATA.mkdir(exist_ok=True)
        pem = Ed25519PrivateKey.generate().private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()
        lines = [f"INTERNAL_TOKEN_SECRET={secrets.token_urlsafe(48)}", "JWT_PRIVATE_KEY=" + pem.replace("\n", "\\n")]
        SECRETS_FILE.touch(mode=0o600)
        SECRETS_FILE.write_text("\n".join(lines) + "\n")
    values = {}
    for line in SECRETS_FILE.read_text().splitlines():
        name, _, value = line.partition("=")
        values[name] = value.replace("\\n", "\n")
    return values


def connection_limit(url: str) -> int:
    """Connections the server at `url` gives ordinary roles: `max_connections` less those
    reserved for superusers."""
    with psycopg2.connect(make_dsn(url, dbname="postgres", connect_timeout=5)) as conn, conn.cursor() as cur:
        cur.execute(
            "SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int"
        )
        (limit,) = cur.fetchone()
    conn.close()
    return int(limit)


def local_pool_max(url: str, parts: tuple[Part, ...] = PARTS) -> int:
    """DB_POOL_MAX for `parts` run as `make run` runs them against the server at `url`: pools full
    and relays connected, they stay inside what the server allows, with room for an operator."""
    fitting = pool_max_within(connection_limit(url) - LOCAL_HEADROOM_CONNECTIONS, parts)
    if fitting < 1:
        raise SystemExit(f"PostgreSQL at {url} allows too few connections for every part; raise max_connections")
    return min(DEFAULT_POOL_MAX, fitting)


@contextmanager
def local_stack(own_postgres: int = 0) -> Iterator[dict[str, str]]:
    """The environment of a local run: reachable stores (started if need be) and local secrets.
    With `own_postgres`, a throwaway PostgreSQL allowing that many connections is started for the
    run instead of using the one at DATABASE_URL."""
    with ExitStack() as stack:
        environ = dict(os.environ)
        database_url = environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
        if own_postgres:
            database_url = stack.enter_context(throwaway_postgres(own_postgres))
        elif not postgres_answers(database_url):
            log(f"no PostgreSQL answers at {database_url}")
            database_url = stack.enter_context(private_postgres())
            _wait_until(lambda: postgres_answers(database_url), "the private PostgreSQL")
        redis_url = environ.get("REDIS_URL") or DEFAULT_REDIS_URL
        if not redis_answers(redis_url):
            log(f"no Redis answers at {redis_url}")
            redis_url = stack.enter_context(private_redis())
        environ["DATABASE_URL"] = database_url
        environ["REDIS_URL"] = redis_url
        # Every part's pool, together, inside the server's connection limit.
        environ.setdefault("DB_POOL_MAX", str(local_pool_max(database_url)))
        for name, value in local_secrets().items():
            environ.setdefault(name, value)
        # The local gateway's own address: its OAuth issuer and links, as in production, and what
        # `make admin` mints tokens for.
        environ.setdefault("PUBLIC_URL", f"http://127.0.0.1:{part_ports(environ)[GATEWAY.name]}")
        yield environ
