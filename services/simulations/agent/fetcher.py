"""How an agent reads an App's public documents: one small interface, `Fetcher.get(path)`, the
path of a document on the App's site (`/llms.txt`, `/sitemap.xml`, `/robots.txt`, a page).

`AppsFetcher` reads them from the apps part's internal endpoint of the same name (what the public
App edge serves, computed by the same code); an edge fetcher would send the same GET to the App's
hostname. Within one run every path is read once and kept (`RunFetcher`): the run sees one
version of the App however long it lasts, and that version is its snapshot.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Protocol

from libs.common.clients import AppsClient
from libs.common.internal_token import Caller


@dataclass(frozen=True)
class Fetched:
    path: str
    status: int
    content_type: str
    body: bytes
    etag: str | None
    elapsed_ms: float
    # True when the run had read this path before: no second request was made.
    kept: bool = False

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    @property
    def ok(self) -> bool:
        return self.status == 200


class Fetcher(Protocol):
    async def get(self, path: str) -> Fetched:
        """The document at `path` of the App's site, with its status (404 when there is none)."""
        ...


class AppsFetcher:
    """An App's documents as the apps part publishes them, read for the App's organization."""

    def __init__(self, apps: AppsClient, caller: Caller, app_id: str, user_agent: str) -> None:
        self._apps = apps
        self._caller = caller
        self._app_id = app_id
        self._user_agent = user_agent

    async def get(self, path: str) -> Fetched:
        started = time.perf_counter()
        answer = await self._apps.published(self._caller, self._app_id, path, self._user_agent)
        elapsed = (time.perf_counter() - started) * 1000
        content_type = answer.headers.get("Content-Type", "")
        return Fetched(path, answer.status, content_type, answer.body, answer.headers.get("ETag"), elapsed)


class RunFetcher:
    """A run's view of the App: each path read once, every later read served from what was read."""

    def __init__(self, fetcher: Fetcher) -> None:
        self._fetcher = fetcher
        self._read: dict[str, Fetched] = {}

    async def get(self, path: str) -> Fetched:
        kept = self._read.get(path)
        if kept is not None:
            return Fetched(kept.path, kept.status, kept.content_type, kept.body, kept.etag, 0.0, kept=True)
        fetched = await self._fetcher.get(path)
        self._read[path] = fetched
        return fetched

    def snapshot(self) -> str:
        """The version of the App the run saw: a digest of every path it read, its status and bytes."""
        digest = hashlib.blake2b(digest_size=16)
        for path in sorted(self._read):
            fetched = self._read[path]
            digest.update(f"{path}\n{fetched.status}\n{len(fetched.body)}\n".encode())
            digest.update(fetched.body)
        return f"b2-{digest.hexdigest()}"
