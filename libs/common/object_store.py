"""Where a part keeps objects too large or too cold for its rows (a run's step log): one small
interface, `put(key, body)` and `get(key)`, with two implementations chosen by a setting.

- `PostgresObjectStore`: the part's own `objects` table (its schema, its role), the default: it
  needs nothing the part does not already have, and every replica reads what another wrote.
- `FileObjectStore`: files under one directory, written whole (a temporary file renamed), for a
  deployment that mounts a shared volume.

An S3-compatible bucket is the third implementation of the same two calls; this deployment has
none (docs/operations.md). A key is a relative path (`part/.../name`), the same in every store.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Protocol

import aiopg

from libs.common.db import cursor, fetch_value, transaction
from libs.common.settings import SettingsError


class ObjectStore(Protocol):
    # What `logS3Keys` names as the store: `postgres:<schema>.objects` or `file:<directory>`.
    name: str

    async def put(self, key: str, body: bytes, content_type: str) -> None: ...

    async def get(self, key: str) -> bytes | None: ...


def _checked(key: str) -> str:
    parts = key.split("/")
    if not key or key.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"an object key is a relative path without . or .. parts, got {key!r}")
    return key


class PostgresObjectStore:
    def __init__(self, pool: aiopg.Pool, schema: str) -> None:
        self._pool = pool
        self.name = f"postgres:{schema}.objects"

    async def put(self, key: str, body: bytes, content_type: str) -> None:
        async with transaction(self._pool) as cur:
            await cur.execute(
                "INSERT INTO objects (key, content_type, body) VALUES (%s, %s, %s)"
                " ON CONFLICT (key) DO UPDATE SET content_type = excluded.content_type, body = excluded.body,"
                " updated_at = clock_timestamp()",
                (_checked(key), content_type, body),
            )

    async def get(self, key: str) -> bytes | None:
        async with cursor(self._pool) as cur:
            body = await fetch_value(cur, "SELECT body FROM objects WHERE key = %s", (_checked(key),))
        return None if body is None else bytes(body)


class FileObjectStore:
    def __init__(self, root: Path) -> None:
        self._root = root
        self.name = f"file:{root}"

    def _write(self, key: str, body: bytes) -> None:
        path = self._root / _checked(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".put-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(body)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def _read(self, key: str) -> bytes | None:
        path = self._root / _checked(key)
        return path.read_bytes() if path.is_file() else None

    async def put(self, key: str, body: bytes, content_type: str) -> None:
        await asyncio.to_thread(self._write, key, body)

    async def get(self, key: str) -> bytes | None:
        return await asyncio.to_thread(self._read, key)


def store_setting(name: str, value: str) -> str:
    """The setting checked: `postgres`, or `file:<absolute directory>`."""
    if value != "postgres" and not (value.startswith("file:") and Path(value.removeprefix("file:")).is_absolute()):
        raise SettingsError(f"environment variable {name} must be postgres or file:<absolute directory>, got {value!r}")
    return value


def object_store(setting: str, pool: aiopg.Pool, schema: str) -> ObjectStore:
    """The store a checked setting names."""
    if setting.startswith("file:"):
        return FileObjectStore(Path(setting.removeprefix("file:")))
    return PostgresObjectStore(pool, schema)
