"""Triggers work whoever fires them: another role, another search_path. Every trigger function
of every part is bound to its schema."""

from __future__ import annotations

import psycopg2

from libs.contract.parts import PARTS
from tests import conftest
from tests.factories import IdentityFactory


def test_every_trigger_function_of_every_part_is_bound_to_its_schema(database: conftest.TestDatabase):
    with psycopg2.connect(database.admin_dsn) as conn, conn.cursor() as cur:
        cur.execute(
            "SELECT n.nspname, p.proname, p.proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE p.prorettype = 'trigger'::regtype AND n.nspname = ANY(%s)",
            ([part.schema for part in PARTS],),
        )
        functions = cur.fetchall()
    conn.close()
    assert functions
    unbound = [
        f"{schema}.{name}" for schema, name, config in functions if f"search_path={schema}" not in (config or [])
    ]
    assert unbound == []


async def test_a_membership_deleted_from_another_search_path_is_recorded(
    database: conftest.TestDatabase, identity: IdentityFactory
):
    org = await identity.organization()
    user = await identity.user(org)
    conn = psycopg2.connect(database.admin_dsn)
    try:
        with conn, conn.cursor() as cur:
            cur.execute("SET search_path = public")
            cur.execute("DELETE FROM identity.memberships WHERE user_id = %s AND organization_id = %s", (user, org.id))
            assert cur.rowcount == 1
            cur.execute(
                "SELECT count(*) FROM identity.identity_changes WHERE kind = 'membership' AND key = %s",
                (f"{user}:{org.id}",),
            )
            assert cur.fetchone()[0] >= 2  # the insert and the delete
    finally:
        conn.close()
