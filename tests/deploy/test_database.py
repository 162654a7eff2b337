"""The database as the bootstrap leaves it: one role per part, each walled into its own schema."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import psycopg2
import pytest
from psycopg2 import sql
from psycopg2.extensions import make_dsn

from deploy import seed, seed_simulations
from libs.common import bootstrap as db
from libs.common.migrations import pending_migrations, read_sql
from libs.contract.parts import CONTENT, GATEWAY, PARTS, SIMULATIONS
from tests.gateway.dashboard_client import sign_in


def test_a_part_cannot_read_another_parts_tables(database):
    conn = psycopg2.connect(database.dsn(SIMULATIONS))
    try:
        with conn.cursor() as cur, pytest.raises(psycopg2.errors.InsufficientPrivilege):
            cur.execute("SELECT * FROM identity.api_keys")
    finally:
        conn.close()


def test_a_part_cannot_create_objects_outside_its_schema(database):
    conn = psycopg2.connect(database.dsn(GATEWAY))
    try:
        with conn.cursor() as cur, pytest.raises(psycopg2.errors.InsufficientPrivilege):
            cur.execute("CREATE TABLE public.smuggled (id int)")
    finally:
        conn.close()


def test_each_schema_is_owned_by_its_part_alone(database):
    conn = psycopg2.connect(database.admin_dsn)
    with conn, conn.cursor() as cur:
        cur.execute(
            "SELECT nspname, pg_get_userbyid(nspowner), nspacl::text FROM pg_namespace WHERE nspname = ANY(%s)",
            ([part.schema for part in PARTS],),
        )
        rows = {name: (owner, acl) for name, owner, acl in cur.fetchall()}
    conn.close()
    for part in PARTS:
        owner, acl = rows[part.schema]
        assert owner == part.role
        assert acl == f"{{{part.role}=UC/{part.role}}}"  # nobody else has any right on it


def test_a_part_connecting_without_options_gets_its_schema_and_utc(database):
    """What a connection through PgBouncer gets, which passes no connection options on."""
    conn = psycopg2.connect(database.dsn(CONTENT))
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT current_setting('search_path'), current_setting('TimeZone')")
            assert cur.fetchone() == (CONTENT.schema, "UTC")
    finally:
        conn.close()


def test_the_bootstrap_can_run_again(database):
    assert db.setup(database.admin_dsn) == {part.name: [] for part in PARTS}


def test_seeding_twice_changes_nothing_and_keeps_the_key(database, tmp_path):
    key_file = tmp_path / "demo-api-key"
    first = seed.run(database.admin_dsn, key_file)
    counts = table_counts(database)
    second = seed.run(database.admin_dsn, key_file)
    assert second == first
    assert table_counts(database) == counts
    conn = psycopg2.connect(database.admin_dsn)
    with conn, conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM simulations.runs WHERE organization_id = %s", (seed.ORGANIZATION["id"],))
        assert cur.fetchone()[0] == sum(trials for _, _, trials in seed_simulations.DEMO)
        cur.execute("SELECT count(*) FROM content.documents WHERE product_id = %s", (seed.PRODUCT["id"],))
        assert cur.fetchone()[0] == len(seed.PAGES)
    conn.close()
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    password_file = key_file.with_name("demo-password")
    assert password_file.read_text().strip() == first.password
    assert oct(password_file.stat().st_mode & 0o777) == "0o600"


async def test_the_demo_account_signs_in_to_the_dashboard(database, tmp_path, gateway):
    demo = await seed.seed(database.admin_dsn, tmp_path / "demo-api-key")
    response = await sign_in(gateway, demo.email, demo.password)
    assert (response.status, response.headers["Location"]) == (303, f"/{seed.ORGANIZATION['slug']}")


def table_counts(database) -> dict[str, int]:
    tables = (
        "identity.organizations",
        "identity.products",
        "identity.users",
        "identity.memberships",
        "identity.api_keys",
        "simulations.tasks",
        "simulations.environments",
        "simulations.runs",
        "content.documents",
        "content.outbox",
    )
    conn = psycopg2.connect(database.admin_dsn)
    counts = {}
    with conn, conn.cursor() as cur:
        for table in tables:
            cur.execute(f"SELECT count(*) FROM {table}")  # noqa: S608 (fixed names)
            counts[table] = cur.fetchone()[0]
    conn.close()
    return counts


def test_a_part_waits_for_its_migrations_before_serving(database):
    """`deploy.db wait` (each Deployment's init container) passes only once the schema is current."""
    fresh = f"aivis_test_wait_{uuid.uuid4().hex[:8]}"
    admin = make_dsn(database.admin_dsn, dbname=fresh)
    db.ensure_database(admin)
    try:
        command = [sys.executable, "-m", "deploy.db", "wait", "content", "--timeout", "0"]
        before = subprocess.run(
            command,
            env={**os.environ, "DATABASE_URL": db.part_dsn(admin, CONTENT)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert before.returncode == 1
        assert "001_" in before.stderr
        db.setup(admin)
        after = subprocess.run(
            command,
            env={**os.environ, "DATABASE_URL": db.part_dsn(admin, CONTENT)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (after.returncode, after.stdout.strip()) == (0, "content: schema up to date")
    finally:
        drop_database(database.admin_dsn, fresh)


def test_two_migrate_jobs_at_once_on_a_fresh_database_both_succeed(database):
    fresh = f"aivis_test_twice_{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": make_dsn(database.admin_dsn, dbname=fresh)}
    command = [sys.executable, "-m", "deploy.db", "setup"]
    try:
        jobs = [
            subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        finished = [job.communicate(timeout=120) for job in jobs]
        assert [job.returncode for job in jobs] == [0, 0], [stderr for _, stderr in finished]
        conn = psycopg2.connect(db.part_dsn(env["DATABASE_URL"], CONTENT))
        try:
            assert pending_migrations(conn, CONTENT.schema, CONTENT.migrations) == []
        finally:
            conn.close()
    finally:
        drop_database(database.admin_dsn, fresh)


def test_a_migration_added_to_the_code_is_pending_until_applied(database, tmp_path):
    for source in CONTENT.migrations.glob("*.sql"):
        (tmp_path / source.name).write_text(read_sql(source))  # its includes in place, as applied
    (tmp_path / "999_next.sql").write_text("CREATE TABLE next_thing (id int);")
    conn = psycopg2.connect(database.dsn(CONTENT))
    try:
        assert pending_migrations(conn, CONTENT.schema, CONTENT.migrations) == []
        assert pending_migrations(conn, CONTENT.schema, tmp_path) == ["999_next"]
    finally:
        conn.close()


def drop_database(admin_dsn: str, name: str) -> None:
    conn = psycopg2.connect(make_dsn(admin_dsn, dbname="postgres"))
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    conn.close()
