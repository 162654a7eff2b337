"""PostgreSQL through aiopg: the pool as a cleanup context, and small query helpers.

aiopg runs in autocommit; a write that must be atomic goes through `transaction()`. Each pool
sets `search_path` to its part's schema, so a part's SQL names only its own tables.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import Any, TypeAlias

import aiopg
import psycopg2.errors
import psycopg2.extensions
import psycopg2.extras
import psycopg2.sql
from aiohttp import web

from libs.common.encoding import dumps
from libs.common.errors import Conflict, ServiceUnavailable
from libs.common.metrics import DB_POOL_IN_USE, DB_POOL_WAITING
from libs.common.outage import Outage
from libs.common.state import DB_POOL, SETTINGS

Row = dict[str, Any]
Params = Sequence[Any] | dict[str, Any] | None
# Plain text, or composed with psycopg2.sql where an identifier is not fixed.
Query: TypeAlias = "str | psycopg2.sql.Composable"


class DictCursor(psycopg2.extensions.cursor):  # type: ignore[misc]  # psycopg2 ships no types
    """Rows as plain dicts by column name, made from psycopg2's tuples by `dict(zip(...))`:
    psycopg2's RealDictCursor sets each item of each row in Python, which was a fifth of a large
    report's read (docs/performance.md, "Analytics reports")."""

    def _names(self) -> list[str]:
        return [column.name for column in self.description]

    def fetchone(self) -> Row | None:
        row = super().fetchone()
        return None if row is None else dict(zip(self._names(), row, strict=True))

    def fetchmany(self, size: int | None = None) -> list[Row]:
        rows = super().fetchmany(self.arraysize if size is None else size)
        names = self._names()
        return [dict(zip(names, row, strict=True)) for row in rows]

    def fetchall(self) -> list[Row]:
        rows = super().fetchall()
        names = self._names()
        return [dict(zip(names, row, strict=True)) for row in rows]

    def __iter__(self) -> Iterator[Row]:
        while (row := self.fetchone()) is not None:
            yield row


DICT_CURSOR = DictCursor

log = logging.getLogger(__name__)


# A pooled connection unused this long is closed, down to the pool's minimum: a burst (or the
# queue behind a frozen database) leaves no connections held that the server could give others.
IDLE_SECONDS = 30.0
TRIM_EVERY_SECONDS = 5.0


async def db_pool_ctx(app: web.Application) -> AsyncIterator[None]:
    """Open the part's pool at startup, close it at cleanup; idle connections are closed meanwhile."""
    settings = app[SETTINGS]
    async with (
        create_pool(settings.database_url, settings.db_schema, settings.db_pool_min, settings.db_pool_max) as pool,
        trimmed(pool, IDLE_SECONDS, TRIM_EVERY_SECONDS),
    ):
        app[DB_POOL] = pool
        yield


def trim_idle(pool: aiopg.Pool, idle_seconds: float) -> int:
    """Close the free connections of `pool` unused for `idle_seconds`, keeping its minimum.
    Returns how many were closed. (aiopg's pool never shrinks by itself.)"""
    now = asyncio.get_running_loop().time()
    closed = 0
    free = pool._free  # aiopg keeps its free connections here, the least recently released first
    for conn in list(free):
        if pool.size <= pool.minsize:
            break
        if conn.closed or now - conn.last_usage >= idle_seconds:
            free.remove(conn)
            conn.close()
            closed += 1
    return closed


@asynccontextmanager
async def trimmed(pool: aiopg.Pool, idle_seconds: float, every: float) -> AsyncIterator[None]:
    """Trim `pool`'s idle connections every `every` seconds while the context lasts."""
    from libs.common.tasks import periodic  # tasks reports database failures through this module

    async def trim() -> None:
        trim_idle(pool, idle_seconds)

    async with periodic(every, trim, "db-pool-trim"):
        yield


def session_options(schema: str) -> str:
    """The session settings of a part's connections: its own schema, and UTC, so timestamps
    PostgreSQL renders itself (to_json) always read "+00:00"."""
    return f"-c search_path={schema} -c timezone=UTC"


# How long an operation of a pooled connection may wait for the server.
OPERATION_TIMEOUT_SECONDS = 30.0


def create_pool(dsn: str, schema: str, minsize: int, maxsize: int, timeout: float = OPERATION_TIMEOUT_SECONDS) -> Any:
    return aiopg.create_pool(
        dsn, minsize=minsize, maxsize=maxsize, timeout=timeout, enable_hstore=False, options=session_options(schema)
    )


def is_database_unavailable(exc: BaseException) -> bool:
    """Whether `exc` means the database cannot be reached or the connection broke.

    Beside psycopg2's own errors and aiopg's timeout on an operation, uvloop answers an operation
    on the socket of a connection the server dropped with `RuntimeError: unable to perform
    operation on <UVPoll closed=True>`.
    A group (concurrent queries) counts when every member does.
    """
    if isinstance(exc, BaseExceptionGroup):
        return all(is_database_unavailable(member) for member in exc.exceptions)
    if isinstance(exc, psycopg2.OperationalError | psycopg2.InterfaceError):
        return True
    if isinstance(exc, TimeoutError):  # aiopg's own timeout on an operation: the server did not answer
        return _raised_in_database_client(exc)
    return isinstance(exc, RuntimeError) and "closed=True" in str(exc)


def _raised_in_database_client(exc: BaseException) -> bool:
    frame = exc.__traceback__
    while frame is not None:
        if str(frame.tb_frame.f_globals.get("__name__", "")).startswith(("aiopg.", "psycopg2.")):
            return True
        frame = frame.tb_next
    return False


def _connection_broken(exc: BaseException) -> bool:
    """Whether the connection that raised `exc` is no use any more: no server answer at all
    (no SQLSTATE), a connection failure (class 08) or the server ending it (57P0x)."""
    if isinstance(exc, psycopg2.Error) and exc.pgcode is not None:
        return bool(exc.pgcode.startswith(("08", "57P")))
    return is_database_unavailable(exc)


def database_unavailable() -> ServiceUnavailable:
    return ServiceUnavailable("database unavailable")


# This process's view of whether its database answers.
OUTAGE = Outage("database", log)


@contextmanager
def closing_half_made() -> Iterator[None]:
    """Close the connection an aiopg connect left half made when it failed.

    On uvloop, a socket that the server's end broke can leave the loop watching its descriptor
    number; a new connection that gets the same number fails in aiopg's constructor (uvloop's
    `RuntimeError ... <UVPoll closed=True>`), after psycopg2 opened it. Nobody holds that object:
    left to the garbage collector it logs "Unclosed connection" and "Future exception was never
    retrieved" at ERROR (hundreds in a ten-second outage), and until then the stale watch fails
    every connection given that number. Closing it here stops watching the descriptor, so the
    next connection works, and says nothing.
    """
    try:
        yield
    except Exception as exc:
        frame = exc.__traceback__
        while frame is not None:
            made = frame.tb_frame.f_locals.get("self")
            if isinstance(made, aiopg.Connection) and not made.closed:
                # Its constructor made the future that close() fails with "Connection closed";
                # nothing awaits it, so it is retrieved here.
                waiter = made._waiter
                made.close()
                if waiter is not None and waiter.done() and not waiter.cancelled():
                    waiter.exception()
                break
            frame = frame.tb_next
        raise


@asynccontextmanager
async def connection(pool: aiopg.Pool) -> AsyncIterator[aiopg.Connection]:
    """A pooled connection; one that broke while in use is closed, so the pool never hands it out
    again, and waiting longer than the pool's timeout for a free one is a 503. Counted while
    awaited (db_pool_waiting) and while lent out (db_pool_in_use); failures that mean the
    database is unavailable go to OUTAGE."""
    DB_POOL_WAITING.inc()
    try:
        with closing_half_made():
            conn = await pool.acquire()
    except TimeoutError as exc:
        OUTAGE.failed(exc)
        raise database_unavailable() from None
    except Exception as exc:
        if is_database_unavailable(exc):
            OUTAGE.failed(exc)
        raise
    finally:
        DB_POOL_WAITING.dec()
    DB_POOL_IN_USE.inc()
    try:
        yield conn
    except BaseException as exc:
        if _connection_broken(exc):
            OUTAGE.failed(exc)
            _close(conn)
        elif isinstance(exc, Exception):  # the database answered; what failed is the caller's
            OUTAGE.answered()
        raise
    else:
        OUTAGE.answered()
    finally:
        DB_POOL_IN_USE.dec()
        if not conn.closed and conn.raw.get_transaction_status() != psycopg2.extensions.TRANSACTION_STATUS_IDLE:
            # Left mid-statement or mid-transaction (its request was cancelled at its deadline):
            # closed here, where aiopg's pool would close it with a ResourceWarning.
            _close(conn)
        pool.release(conn)


def _close(conn: aiopg.Connection) -> None:
    if not conn.closed:
        try:
            conn.close()
        except RuntimeError:  # uvloop: the socket is already gone; the connection is closed anyway
            pass


@asynccontextmanager
async def cursor(pool: aiopg.Pool) -> AsyncIterator[aiopg.Cursor]:
    """A dict cursor in autocommit mode: each statement is its own transaction."""
    async with connection(pool) as conn, conn.cursor(cursor_factory=DICT_CURSOR) as cur:
        yield cur


@asynccontextmanager
async def transaction(pool: aiopg.Pool) -> AsyncIterator[aiopg.Cursor]:
    """A dict cursor inside BEGIN ... COMMIT; an exception rolls everything back."""
    async with connection(pool) as conn, conn.cursor(cursor_factory=DICT_CURSOR) as cur, begun(cur):
        yield cur


@asynccontextmanager
async def begun(cur: aiopg.Cursor) -> AsyncIterator[None]:
    """BEGIN ... COMMIT on the cursor's connection; an exception rolls back. Cancelled, or with
    its connection gone, nothing more is sent: the connection is left mid-transaction and
    `connection` closes it (aiopg's own transaction object would warn when collected)."""
    await cur.execute("BEGIN")
    try:
        yield
    except Exception:
        if not cur.connection.closed:
            with suppress(psycopg2.Error):
                await cur.execute("ROLLBACK")
        raise
    await cur.execute("COMMIT")


@asynccontextmanager
async def savepoint(cur: aiopg.Cursor) -> AsyncIterator[None]:
    """A nested unit inside a transaction: an exception undoes only what ran inside it."""
    await cur.execute("SAVEPOINT unit")
    try:
        yield
    except Exception:
        await cur.execute("ROLLBACK TO SAVEPOINT unit")
        raise
    await cur.execute("RELEASE SAVEPOINT unit")


async def fetch_one(cur: aiopg.Cursor, sql: Query, params: Params = None) -> Row | None:
    await cur.execute(sql, params)
    row: Row | None = await cur.fetchone()
    return row


async def fetch_returned(cur: aiopg.Cursor, sql: Query, params: Params = None) -> Row:
    """The row of a statement that always returns one (INSERT ... RETURNING, say)."""
    row = await fetch_one(cur, sql, params)
    if row is None:
        raise RuntimeError("the statement returned no row")
    return row


async def fetch_all(cur: aiopg.Cursor, sql: Query, params: Params = None) -> list[Row]:
    await cur.execute(sql, params)
    rows: list[Row] = await cur.fetchall()
    return rows


async def fetch_value(cur: aiopg.Cursor, sql: Query, params: Params = None) -> Any:
    row = await fetch_one(cur, sql, params)
    return None if row is None else next(iter(row.values()))


def json_or_null(value: Any) -> psycopg2.extras.Json | None:
    """Adapt a value for a jsonb column; None stays SQL NULL rather than JSON `null`."""
    return None if value is None else psycopg2.extras.Json(value, dumps=lambda v: dumps(v).decode())


def is_unique_violation(exc: BaseException, constraint: str | None = None) -> bool:
    """Whether `exc` is a unique-index violation (of `constraint`, when named)."""
    if not isinstance(exc, psycopg2.errors.UniqueViolation):
        return False
    return constraint is None or exc.diag.constraint_name == constraint


@contextmanager
def conflict_on_unique(message: str, constraint: str | None = None) -> Iterator[None]:
    """Turn a unique-index violation (of `constraint`, when named) into a 409 `CONFLICT`.

    The index decides, not a check-then-insert, so two concurrent writers can never both win.
    """
    try:
        yield
    except psycopg2.errors.UniqueViolation as exc:
        if not is_unique_violation(exc, constraint):
            raise
        raise Conflict(message) from None


async def check_database(app: web.Application) -> None:
    async with cursor(app[DB_POOL]) as cur:
        await cur.execute("SELECT 1")
