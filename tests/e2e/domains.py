"""Proving an App's domain in the end-to-end stack, which asks no DNS server of the tests': the claim
is marked verified in the apps part's schema, as a found TXT record marks it."""

from __future__ import annotations

import psycopg2

from libs.contract.parts import APPS
from tests.conftest import TestDatabase


def verify(database: TestDatabase, hostname: str) -> None:
    with psycopg2.connect(database.dsn(APPS)) as connection, connection.cursor() as cur:
        cur.execute(
            f"UPDATE {APPS.schema}.domains SET verified_at = clock_timestamp(), expires_at = NULL,"
            " updated_at = clock_timestamp()"
            " WHERE domain = %s AND deleted_at IS NULL AND released_at IS NULL AND verified_at IS NULL",
            (hostname,),
        )
        assert cur.rowcount == 1, f"no unverified claim on {hostname}"
    connection.close()
