"""The migration runner: applied once, in order, as the part's role, refusing edited history."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg2
import pytest

from libs.common.migrations import MigrationError, apply_migrations, read_sql
from libs.contract.parts import SIMULATIONS, WEBHOOK_SOURCES
from tests.conftest import owned_schema


@pytest.fixture
def scratch_schema(database) -> Iterator[str]:
    """A schema owned by the simulations role, dropped afterwards."""
    with owned_schema(database.admin_dsn, SIMULATIONS.role) as name:
        yield name


def write(directory: Path, name: str, text: str) -> None:
    (directory / name).write_text(text)


def apply(database, schema: str, directory: Path) -> list[str]:
    conn = psycopg2.connect(database.admin_dsn)
    try:
        return apply_migrations(conn, schema, SIMULATIONS.role, directory)
    finally:
        conn.close()


def test_pending_migrations_apply_once_in_order(database, scratch_schema, tmp_path):
    write(tmp_path, "002_add.sql", "ALTER TABLE items ADD COLUMN label text;")
    write(tmp_path, "001_create.sql", "CREATE TABLE items (id int PRIMARY KEY);")
    assert apply(database, scratch_schema, tmp_path) == ["001_create", "002_add"]
    assert apply(database, scratch_schema, tmp_path) == []
    conn = psycopg2.connect(database.admin_dsn)
    with conn, conn.cursor() as cur:
        cur.execute("SELECT tableowner FROM pg_tables WHERE schemaname = %s AND tablename = 'items'", (scratch_schema,))
        assert cur.fetchone() == (SIMULATIONS.role,)
    conn.close()


def test_an_edited_migration_stops_the_deploy(database, scratch_schema, tmp_path):
    write(tmp_path, "001_create.sql", "CREATE TABLE items (id int PRIMARY KEY);")
    apply(database, scratch_schema, tmp_path)
    write(tmp_path, "001_create.sql", "CREATE TABLE items (id bigint PRIMARY KEY);")
    with pytest.raises(MigrationError, match="was edited after it was applied"):
        apply(database, scratch_schema, tmp_path)


def test_a_failing_migration_applies_nothing(database, scratch_schema, tmp_path):
    write(tmp_path, "001_create.sql", "CREATE TABLE items (id int PRIMARY KEY);")
    write(tmp_path, "002_broken.sql", "ALTER TABLE nowhere ADD COLUMN x int;")
    with pytest.raises(psycopg2.errors.UndefinedTable):
        apply(database, scratch_schema, tmp_path)
    (tmp_path / "002_broken.sql").unlink()
    assert apply(database, scratch_schema, tmp_path) == ["001_create"]


def test_concurrent_deploys_apply_each_migration_once(database, scratch_schema, tmp_path):
    write(tmp_path, "001_create.sql", "CREATE TABLE items (id int PRIMARY KEY); SELECT pg_sleep(0.2);")
    results: list[list[str]] = []
    threads = [
        threading.Thread(target=lambda: results.append(apply(database, scratch_schema, tmp_path))) for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [[], [], ["001_create"]]


def test_misnamed_files_are_refused(database, scratch_schema, tmp_path):
    write(tmp_path, "create.sql", "SELECT 1;")
    with pytest.raises(MigrationError, match="three-digit number"):
        apply(database, scratch_schema, tmp_path)


def test_an_included_file_is_applied_in_its_place_and_guarded_by_the_checksum(database, scratch_schema, tmp_path):
    shared, part = tmp_path / "shared", tmp_path / "part"
    shared.mkdir()
    part.mkdir()
    write(shared, "things.sql", "CREATE TABLE things (id int PRIMARY KEY);\n")
    write(part, "001_things.sql", "\\ir ../shared/things.sql\nINSERT INTO things VALUES (1);\n")
    assert apply(database, scratch_schema, part) == ["001_things"]
    write(shared, "things.sql", "CREATE TABLE things (id bigint PRIMARY KEY);\n")
    with pytest.raises(MigrationError, match="001_things was edited"):
        apply(database, scratch_schema, part)


def test_the_shared_webhook_outbox_is_included_by_every_part_that_announces_webhooks():
    for part in WEBHOOK_SOURCES:
        included = [path for path in part.migrations.glob("*.sql") if "webhook_outbox.sql" in path.read_text()]
        assert len(included) == 1, part.name
        assert "CREATE TABLE webhook_outbox (" in read_sql(included[0]), part.name
        assert "CREATE TABLE webhook_outbox (" not in included[0].read_text(), part.name
