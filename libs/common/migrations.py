"""A small migration runner: each part's numbered SQL files, applied into its own schema.

Why not a library: alembic needs SQLAlchemy models we do not have, and yoyo keeps one ledger per
database in the connection's default schema; we want one ledger per schema, applied as the
part's own role so every object it creates is owned by that role and no other. That is a few
dozen lines: a ledger table per schema, files applied in name order inside one transaction,
an advisory lock so two deploys never interleave, and a checksum so an edited migration that
was already applied stops the deploy instead of silently diverging.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from psycopg2 import sql
from psycopg2.extensions import connection as Connection

LEDGER = "schema_migrations"
INCLUDE = "\\ir "


class MigrationError(RuntimeError):
    """A migration file changed after it was applied, or a file is misnamed."""


@dataclass(frozen=True)
class Migration:
    version: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def read_sql(path: Path) -> str:
    """The SQL of a file, each `\\ir <path>` line (psql's include, relative to the file) replaced by
    the text of the file it names: DDL shared by several parts (libs/common/sql/) is written once
    and still applied by each part's own migration, into its own schema. The checksum covers the
    text as included, so a shared file edited after a part applied it stops the deploy too."""
    lines = []
    for line in path.read_text().splitlines(keepends=True):
        if line.startswith(INCLUDE):
            lines.append(read_sql((path.parent / line[len(INCLUDE) :].strip()).resolve()))
        else:
            lines.append(line)
    return "".join(lines)


def discover(directory: Path) -> list[Migration]:
    """The `NNN_name.sql` files of `directory`, in order."""
    found = []
    for path in sorted(directory.glob("*.sql")):
        if not path.name[:3].isdigit():
            raise MigrationError(f"{path} must start with a three-digit number")
        found.append(Migration(version=path.stem, sql=read_sql(path)))
    return found


def pending_migrations(conn: Connection, schema: str, directory: Path) -> list[str]:
    """The versions of `directory` not yet applied to `schema` (read-only; the part's own role can ask).

    An applied migration whose file has changed since is a MigrationError, as when applying.
    """
    migrations = discover(directory)
    with conn, conn.cursor() as cur:
        cur.execute("SELECT to_regclass(%s)", (f"{schema}.{LEDGER}",))
        row = cur.fetchone()
        applied: dict[str, str] = {}
        if row is not None and row[0] is not None:
            cur.execute(
                sql.SQL("SELECT version, checksum FROM {}.{}").format(sql.Identifier(schema), sql.Identifier(LEDGER))
            )
            applied = dict(cur.fetchall())
    for migration in migrations:
        if migration.version in applied and applied[migration.version] != migration.checksum:
            raise MigrationError(f"{schema}/{migration.version} was edited after it was applied")
    return [migration.version for migration in migrations if migration.version not in applied]


def apply_migrations(conn: Connection, schema: str, role: str, directory: Path) -> list[str]:
    """Apply the pending migrations of one schema as `role`, all in one transaction.

    Returns the versions applied. `conn` must belong to a user allowed to SET ROLE `role`.
    """
    migrations = discover(directory)
    applied_now: list[str] = []
    with conn, conn.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"migrations:{schema}",))
        cur.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(role)))
        cur.execute(sql.SQL("SET LOCAL search_path = {}").format(sql.Identifier(schema)))
        cur.execute(
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} ("
                " version text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            ).format(sql.Identifier(LEDGER))
        )
        cur.execute(sql.SQL("SELECT version, checksum FROM {}").format(sql.Identifier(LEDGER)))
        applied = dict(cur.fetchall())
        for migration in migrations:
            if migration.version in applied:
                if applied[migration.version] != migration.checksum:
                    raise MigrationError(f"{schema}/{migration.version} was edited after it was applied")
                continue
            cur.execute(migration.sql)
            cur.execute(
                sql.SQL("INSERT INTO {} (version, checksum) VALUES (%s, %s)").format(sql.Identifier(LEDGER)),
                (migration.version, migration.checksum),
            )
            applied_now.append(migration.version)
    return applied_now
