"""A TCP proxy in the test's own process, put between a part and a store (PostgreSQL, Redis),
that can freeze: while frozen, connections stay open and new ones are accepted, but no byte goes
either way, as with a server that stopped answering (SIGSTOP, a network partition)."""

from __future__ import annotations

import asyncio
import contextlib

from psycopg2.extensions import make_dsn, parse_dsn


class Freezer:
    def __init__(self, host: str, port: int) -> None:
        self._host, self._port = host, port
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.Server | None = None
        self._pumps: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []
        self._closing = False
        self.port = 0

    @classmethod
    def of_postgres(cls, dsn: str) -> Freezer:
        fields = parse_dsn(dsn)
        return cls(fields.get("host") or "127.0.0.1", int(fields.get("port") or 5432))

    def postgres_dsn(self, dsn: str) -> str:
        """`dsn`, through the proxy."""
        return str(make_dsn(dsn, host="127.0.0.1", port=str(self.port)))

    def freeze(self) -> None:
        self._flowing.clear()

    def thaw(self) -> None:
        self._flowing.set()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        await self._flowing.wait()
        if self._closing:
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(self._host, self._port)
        except OSError:
            writer.close()
            return
        self._writers.append(upstream_writer)
        for pump in (self._pump(reader, upstream_writer), self._pump(upstream_reader, writer)):
            task = asyncio.create_task(pump)
            self._pumps.add(task)
            task.add_done_callback(self._pumps.discard)

    async def __aenter__(self) -> Freezer:
        self._server = await asyncio.start_server(self._accepted, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *_: object) -> None:
        self._closing = True
        self.thaw()
        assert self._server is not None
        self._server.close()
        for task in list(self._pumps):
            task.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)
        for writer in self._writers:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
        await self._server.wait_closed()
