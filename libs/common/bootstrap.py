"""Database bootstrap: the database, one role and schema per part, extensions, migrations.

`setup` with an administrative user (one that can create roles, or that already has them) is safe
to run again and from several processes at once; `wait_for_migrations` with a part's role returns
once the part's schema holds every migration of this code. Their commands are `python -m deploy.db
setup|wait` (a cluster's migration job and init containers); `make run` and the test suite call
them directly.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Iterator

import psycopg2
import psycopg2.errors
from psycopg2 import sql
from psycopg2.extensions import make_dsn, parse_dsn

from libs.common.migrations import apply_migrations, pending_migrations
from libs.contract.parts import PARTS, Part

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/aivis"


def admin_url() -> str:
    return os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL


def part_dsn(admin: str, part: Part) -> str:
    """The connection string a part's service uses: same server and database, its own role."""
    password = os.environ.get(f"{part.name.upper()}_DB_PASSWORD")
    fields = {key: value for key, value in parse_dsn(admin).items() if key != "password"}
    fields["user"] = part.role
    if password:
        fields["password"] = password
    return str(make_dsn(**fields))


def ensure_database(admin: str) -> None:
    """Create the database named in `admin` when it does not exist yet."""
    fields = parse_dsn(admin)
    name = fields.get("dbname")
    if not name:
        raise SystemExit("DATABASE_URL must name a database")
    conn = psycopg2.connect(make_dsn(admin, dbname="postgres"))
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
            if cur.fetchone() is None:
                try:
                    cur.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
                except (psycopg2.errors.DuplicateDatabase, psycopg2.errors.UniqueViolation):
                    pass  # created by a concurrent bootstrap (which of the two depends on the moment)
    finally:
        conn.close()


def _ensure_role(cur: psycopg2.extensions.cursor, part: Part) -> None:
    cur.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (part.role,))
    if cur.fetchone() is None:
        try:
            cur.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(part.role)))
        except (psycopg2.errors.DuplicateObject, psycopg2.errors.UniqueViolation):
            pass  # created by a concurrent bootstrap
    password = os.environ.get(f"{part.name.upper()}_DB_PASSWORD")
    if password:
        cur.execute(sql.SQL("ALTER ROLE {} PASSWORD %s").format(sql.Identifier(part.role)), (password,))
    cur.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
    row = cur.fetchone()
    if row is None or not row[0]:
        # A non-superuser administrator needs membership to run the part's migrations as it.
        cur.execute(sql.SQL("GRANT {} TO CURRENT_USER").format(sql.Identifier(part.role)))


def _ensure_schema(cur: psycopg2.extensions.cursor, part: Part) -> None:
    schema, role = sql.Identifier(part.schema), sql.Identifier(part.role)
    cur.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {} AUTHORIZATION {}").format(schema, role))
    cur.execute(sql.SQL("ALTER SCHEMA {} OWNER TO {}").format(schema, role))
    cur.execute(sql.SQL("REVOKE ALL ON SCHEMA {} FROM PUBLIC").format(schema))
    # What the parts also ask for at connection time (libs.common.db.session_options), as the
    # role's defaults: PgBouncer does not pass connection options on (deploy/pgbouncer.py).
    cur.execute(sql.SQL("ALTER ROLE {} SET search_path = {}").format(role, schema))
    cur.execute(sql.SQL("ALTER ROLE {} SET timezone = 'UTC'").format(role))
    for extension in part.extensions:
        try:
            cur.execute(
                sql.SQL("CREATE EXTENSION IF NOT EXISTS {} WITH SCHEMA public").format(sql.Identifier(extension))
            )
        except psycopg2.errors.UniqueViolation:
            pass  # created by a concurrent bootstrap


# Roles are the cluster's, not one database's: bootstraps of several databases at once (the test
# suite's workers) take turns at them, or PostgreSQL refuses one with "tuple concurrently updated".
ROLES_LOCK = 0x61697669


@contextlib.contextmanager
def roles_turn(admin: str) -> Iterator[None]:
    """Hold the cluster-wide bootstrap lock (an advisory lock in the `postgres` database)."""
    conn = psycopg2.connect(make_dsn(admin, dbname="postgres"))
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_lock(%s)", (ROLES_LOCK,))
        yield
    finally:
        conn.close()  # ends the session, and its lock with it


def setup(admin: str, parts: Iterable[Part] = PARTS) -> dict[str, list[str]]:
    """Bring the database to the current state of every part; returns the migrations applied."""
    with roles_turn(admin):  # two bootstraps of a fresh server: one creates, the other finds it
        ensure_database(admin)
    conn = psycopg2.connect(admin)
    applied: dict[str, list[str]] = {}
    try:
        conn.autocommit = True
        with roles_turn(admin), conn.cursor() as cur:
            # The public schema is no part's: nobody but its owner may create objects in it.
            cur.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
            for part in parts:
                _ensure_role(cur, part)
                _ensure_schema(cur, part)
        conn.autocommit = False
        for part in parts:
            applied[part.name] = apply_migrations(conn, part.schema, part.role, part.migrations)
    finally:
        conn.close()
    return applied


WAIT_INTERVAL_SECONDS = 2.0


def wait_for_migrations(dsn: str, part: Part, timeout: float) -> list[str]:
    """Poll until `part`'s schema has every migration of this code; returns what is still pending
    when `timeout` runs out (empty: ready). A database that does not answer yet is polled again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            conn = psycopg2.connect(make_dsn(dsn, connect_timeout=5))
            try:
                pending = pending_migrations(conn, part.schema, part.migrations)
            finally:
                conn.close()
        except psycopg2.OperationalError as exc:
            pending = [f"(database unavailable: {str(exc).strip()})"]
        if not pending or time.monotonic() >= deadline:
            return pending
        time.sleep(WAIT_INTERVAL_SECONDS)
