"""The ClickHouse engine embedded by chdb, as the ClickHouse store's `Engine` (services/traffic/
store_clickhouse.py): the suite and the benchmarks run that store's SQL on the real engine without
a server. chdb is a development dependency; its queries run in a thread, off the event loop."""

from __future__ import annotations

import asyncio
from typing import Any

from chdb import session


def _literal(value: Any) -> Any:
    """A parameter as chdb takes it: an array in ClickHouse's text form (clickhouse-connect, the
    production engine, formats Python lists itself)."""
    if isinstance(value, list):
        quoted = ("'" + str(item).replace("\\", "\\\\").replace("'", "\\'") + "'" for item in value)
        return "[" + ",".join(quoted) + "]"
    return value


class ChdbEngine:
    def __init__(self, path: str) -> None:
        self._session = session.Session(path)  # type: ignore[no-untyped-call]
        # One statement at a time: a chdb session is not made for concurrent queries.
        self._lock = asyncio.Lock()

    async def _run(self, sql: str, fmt: str, params: dict[str, Any] | None = None) -> bytes:
        async with self._lock:
            answer = await asyncio.to_thread(self._session.query, sql, fmt, params=params)
        return bytes(answer.bytes()) if answer is not None else b""

    async def query(self, sql: str, params: dict[str, Any]) -> bytes:
        return await self._run(sql, "JSONEachRow", {name: _literal(value) for name, value in params.items()})

    async def command(self, sql: str) -> None:
        await self._run(sql, "CSV")

    async def insert(self, table: str, rows: bytes) -> None:
        await self._run(f"INSERT INTO {table} FORMAT JSONEachRow\n" + rows.decode(), "CSV")

    def close(self) -> None:
        self._session.close()  # type: ignore[no-untyped-call]
