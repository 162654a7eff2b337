"""Migration 003 lists the documents a schema already holds when it is applied."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import psycopg2
import pytest
from psycopg2 import sql

from libs.common.migrations import apply_migrations
from libs.contract.parts import CONTENT, ROOT
from tests.conftest import owned_schema

MIGRATIONS = ROOT / "services" / "content" / "migrations"


@pytest.fixture
def scratch_schema(database) -> Iterator[str]:
    """A schema owned by the content role, dropped afterwards."""
    with owned_schema(database.admin_dsn, CONTENT.role) as name:
        yield name


def test_documents_written_before_the_migration_are_listed_when_live(database, scratch_schema, tmp_path):
    for migration in sorted(MIGRATIONS.glob("00[12]_*.sql")):
        shutil.copy(migration, tmp_path)
    conn = psycopg2.connect(database.admin_dsn)
    try:
        assert apply_migrations(conn, scratch_schema, CONTENT.role, tmp_path) == [
            "001_content",
            "002_site_pages_under_writes",
        ]
        with conn, conn.cursor() as cur:
            cur.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(scratch_schema)))
            cur.execute(
                "INSERT INTO documents (organization_id, product_id, file_path, title, deleted_at)"
                " SELECT gen_random_uuid(), gen_random_uuid(), '/Page-' || n, 'Title ' || n,"
                " CASE WHEN n = 3 THEN now() END FROM generate_series(1, 3) AS n"
            )
        shutil.copy(MIGRATIONS / "003_listed_documents.sql", tmp_path)
        assert apply_migrations(conn, scratch_schema, CONTENT.role, tmp_path) == ["003_listed_documents"]
        with conn, conn.cursor() as cur:
            cur.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(scratch_schema)))
            cur.execute("SELECT file_path, title_lower FROM listed_documents ORDER BY file_path")
            assert cur.fetchall() == [("/Page-1", "title 1"), ("/Page-2", "title 2")]
    finally:
        conn.close()
