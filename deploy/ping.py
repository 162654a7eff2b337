"""Whether this pod reaches its stores, with its own settings: `python -m deploy.ping redis` (REDIS_URL)
or `python -m deploy.ping database` (DATABASE_URL, through PgBouncer in a cluster). Prints the
answer and how long it took; exits 1 when the store does not answer. For on-call inside a pod:
the image has neither redis-cli nor psql (docs/operations.md).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from urllib.parse import urlsplit

import psycopg2
import redis
from psycopg2.extensions import make_dsn, parse_dsn

from libs.common.bootstrap import DEFAULT_DATABASE_URL
from libs.local.stores import DEFAULT_REDIS_URL

TIMEOUT_SECONDS = 5


def ping_redis(url: str) -> str:
    client = redis.Redis.from_url(url, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS)
    with contextlib.closing(client):
        client.ping()
        memory = client.info("memory")["used_memory_human"]
        clients = client.info("clients")["connected_clients"]
    return f"PONG (used memory {memory}, {clients} clients)"


def ping_database(url: str) -> str:
    with contextlib.closing(psycopg2.connect(make_dsn(url, connect_timeout=TIMEOUT_SECONDS))) as conn:
        with conn.cursor() as cur:
            cur.execute("SELECT current_user, current_setting('server_version')")
            user, version = cur.fetchone()
    return f"answered as {user} (PostgreSQL {version})"


def where(url: str, store: str) -> str:
    """The host and port of a store's URL, never its password."""
    if store == "redis":
        parsed = urlsplit(url)
        return f"{parsed.hostname or 'localhost'}:{parsed.port or 6379}"
    fields = parse_dsn(url)
    return f"{fields.get('host', 'localhost')}:{fields.get('port', 5432)}/{fields.get('dbname', '')}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deploy.ping", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("store", choices=["redis", "database"])
    args = parser.parse_args(argv)
    if args.store == "redis":
        url, ping = os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL, ping_redis
    else:
        url, ping = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL, ping_database
    started = time.monotonic()
    try:
        answer = ping(url)
    except (redis.RedisError, psycopg2.Error, OSError) as exc:
        print(f"{args.store} at {where(url, args.store)}: no answer: {str(exc).strip()}", file=sys.stderr)
        return 1
    print(f"{args.store} at {where(url, args.store)}: {answer} in {(time.monotonic() - started) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
