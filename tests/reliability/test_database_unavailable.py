"""A database that cannot be reached is a 503 with Retry-After in every part; broken connections
leave the pool."""

from __future__ import annotations

import aiopg
import psycopg2
import pytest
from aiohttp import web
from psycopg2.extensions import make_dsn

from libs.common.db import DICT_CURSOR, connection, cursor, session_options
from libs.common.middlewares import error_middleware
from libs.common.service import render_plain_error
from libs.contract.parts import SIMULATIONS
from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"
UVLOOP_CLOSED = "unable to perform operation on <UVPoll closed=True>; the handler is closed"

CONDITIONS = {
    "operational": lambda: psycopg2.OperationalError("server closed the connection unexpectedly"),
    "interface": lambda: psycopg2.InterfaceError("connection already closed"),
    "uvloop": lambda: RuntimeError(UVLOOP_CLOSED),
    "concurrent queries": lambda: ExceptionGroup(
        "gather", [psycopg2.OperationalError("x"), RuntimeError(UVLOOP_CLOSED)]
    ),
}


@pytest.mark.parametrize("condition", sorted(CONDITIONS))
async def test_every_database_unavailable_condition_is_a_503_with_retry_after(aiohttp_client, condition):
    async def failing(request: web.Request) -> web.Response:
        raise CONDITIONS[condition]()

    app = web.Application(middlewares=[error_middleware(render_plain_error)])
    app.router.add_get("/", failing)
    response = await (await aiohttp_client(app)).get("/")
    assert response.status == 503
    assert response.headers["Retry-After"] == "1"
    assert await response.json() == {"code": "SERVICE_UNAVAILABLE", "message": "database unavailable"}


async def test_other_runtime_errors_stay_internal_errors(aiohttp_client):
    async def failing(request: web.Request) -> web.Response:
        raise RuntimeError("a bug")

    app = web.Application(middlewares=[error_middleware(render_plain_error)])
    app.router.add_get("/", failing)
    assert (await (await aiohttp_client(app)).get("/")).status == 500


async def test_waiting_past_the_pool_timeout_is_a_503(database):
    dsn, options = database.dsn(SIMULATIONS), session_options(SIMULATIONS.schema)
    async with aiopg.create_pool(dsn, minsize=1, maxsize=1, timeout=0.2, options=options) as pool:
        async with connection(pool):
            with pytest.raises(Exception) as caught:
                async with connection(pool):
                    pass
    assert caught.value.status == 503
    assert caught.value.headers == {"Retry-After": "1"}


async def test_a_connection_that_broke_leaves_the_pool(database):
    dsn, options = database.dsn(SIMULATIONS), session_options(SIMULATIONS.schema)
    async with aiopg.create_pool(dsn, minsize=1, maxsize=2, options=options) as pool:
        async with cursor(pool) as cur:
            await cur.execute("SELECT pg_backend_pid() AS pid")
            broken_pid = (await cur.fetchone())["pid"]
        with pytest.raises(RuntimeError):
            async with cursor(pool):
                raise RuntimeError(UVLOOP_CLOSED)  # as uvloop answers on a socket the server dropped
        async with pool.acquire() as conn, conn.cursor(cursor_factory=DICT_CURSOR) as cur:
            await cur.execute("SELECT pg_backend_pid() AS pid")
            assert (await cur.fetchone())["pid"] != broken_pid
        assert pool.size == 1


async def test_connections_ended_by_the_server_answer_503_then_recover(gateway, identity: IdentityFactory, database):
    org = await identity.organization()
    headers = {"x-api-key": await identity.api_key(org)}
    assert (await gateway.get(RUNS, headers=headers)).status == 200  # the service's pool holds a connection
    admin = psycopg2.connect(make_dsn(database.admin_dsn))
    admin.autocommit = True
    with admin.cursor() as cur:
        cur.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE usename = %s AND datname = current_database()",
            (SIMULATIONS.role,),
        )
    admin.close()
    statuses = []
    for _ in range(10):
        response = await gateway.get(RUNS, headers=headers)
        statuses.append(response.status)
        if response.status == 503:
            assert response.headers["Retry-After"] == "1"
            assert (await response.json())["code"] == "SERVICE_UNAVAILABLE"
    assert set(statuses) <= {200, 503}
    assert statuses[-5:] == [200] * 5
